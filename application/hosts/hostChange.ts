// Changing a host's name, labels or capacity, and deleting a host no node is placed on.
import { runCommand, type CommandInput } from '../commands.ts';
import { labelIssues, nodeHostStream, nodeHosts } from '../../domain/hosts/nodeHosts.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { getNodeHost, nodeHostNamed, nodesOnHost, type NodeHostRow } from '../../projections/nodeHosts.ts';
import { capacityOf, type RegisterHostRequest } from './hostRegister.ts';

export async function updateHost(input: CommandInput, hostId: number, req: { name?: string; labels?: Record<string, string>; capacity?: RegisterHostRequest['capacity'] }): Promise<NodeHostRow> {
  const { deps } = input;
  const before = await getNodeHost(deps.pool, hostId);
  if (!before) throw new NotFoundError('Host', hostId);
  const name = req.name?.trim() ?? before.name;
  if (!name) throw new ValidationError('A host needs a name.', [{ field: 'name', message: 'must not be blank' }]);
  const badLabels = labelIssues(req.labels ?? {});
  if (badLabels.length) throw new ValidationError('Invalid label keys.', badLabels);
  const named = await nodeHostNamed(deps.pool, name);
  if (named !== null && named !== hostId) throw new ConflictError(`A host named ${name} exists already.`, { field: 'name' });
  const capacity = req.capacity === undefined ? { maxNodes: before.maxNodes } : capacityOf(req.capacity);
  await runCommand(input, nodeHostStream(hostId), nodeHosts, { type: 'UpdateNodeHost', hostId, name, labels: req.labels ?? before.labels, capacity, at: deps.clock().toISOString() });
  return (await getNodeHost(deps.pool, hostId))!;
}

export async function deleteHost(input: CommandInput, hostId: number): Promise<void> {
  const { deps } = input;
  await runCommand(input, nodeHostStream(hostId), nodeHosts, { type: 'DeleteNodeHost', hostId, nodesOnHost: await nodesOnHost(deps.pool, hostId), at: deps.clock().toISOString() });
}
