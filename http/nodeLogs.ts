// A node's output for the logs route and its WebSocket follow, whatever its platform; key
// material is masked by the engines.
import type { AppDeps } from '../application/deps.ts';
import type { LogFollower } from '../domain/nodes/nodeEngine.ts';
import { NotFoundError } from '../domain/shared/errors.ts';
import type { NodeRow } from '../projections/nodes.ts';
import { evmOf, nodeTarget } from '../application/evm/evmContext.ts';
import { consortiumOf } from '../application/consortium/consortiumContext.ts';
import { consortiumNodeRecord } from '../application/consortium/consortiumNodeRecord.ts';

type Source = { logs(tail: number): Promise<string[]>; follow(onLine: (line: string) => void, tail: number): Promise<LogFollower> };

export async function nodeLogSource(deps: AppDeps, node: NodeRow): Promise<Source> {
  if (node.platform === 'CONSORTIUM') {
    const record = await consortiumNodeRecord(deps, node);
    if (!record) throw new NotFoundError('Node', node.id);
    const runtime = consortiumOf(deps).runtime;
    const target = { node: record, organization: { organizationId: record.organizationId, name: record.mspId, mspId: record.mspId } };
    return { logs: (tail) => runtime.logs(target, tail), follow: (onLine, tail) => runtime.followLogs(target, onLine, tail) };
  }
  const target = await nodeTarget(deps, node);
  if (!target) throw new NotFoundError('Node', node.id);
  const runtime = evmOf(deps).runtime;
  return { logs: (tail) => runtime.logs(target, tail), follow: (onLine, tail) => runtime.followLogs(target, onLine, tail) };
}
