// Renewing a consortium node's certificates (its enrollment and TLS certificates issued again
// by its organization's CAs, with the names its configuration now gives); a node that runs, or
// ran and failed, is restarted so it serves them.
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { nodeOr404 } from '../evm/evmContext.ts';
import { renewConsortiumNodeCertificates } from './consortiumNodeCreate.ts';

export async function renewNodeCertificates(input: CommandInput, nodeId: number): Promise<Array<{ key_id: number; purpose: string; serial_number: string; not_after: string }>> {
  const { deps } = input;
  const node = await nodeOr404(deps, nodeId);
  if (node.platform !== 'CONSORTIUM') throw new ValidationError(`Node ${node.name} is an ${node.platform.toLowerCase()} node: it has no certificates to renew (its keys are under /keys).`, [{ field: 'id', message: 'not a consortium node' }]);
  const certificates = await renewConsortiumNodeCertificates(input, node);
  if (node.status === 'running' || node.status === 'down' || node.status === 'error') {
    await runCommand(input, nodeStream(node.id), nodeAggregate, { type: 'StartNode', nodeId: node.id, restart: true, at: deps.clock().toISOString() });
  }
  return certificates;
}
