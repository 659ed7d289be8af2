// A node's output for the logs route and its WebSocket follow, whatever its platform; key
// material is masked by the engines. A node the engine holds nothing of (it never ran here: no
// directory, no container) is a NodeNeverRanError saying so with the node's last error, never
// the engine's "Node node-N was not found" about a node that exists.
import type { AppDeps } from '../application/deps.ts';
import type { LogFollower } from '../domain/nodes/nodeEngine.ts';
import { AppError, NotFoundError, ValidationError } from '../domain/shared/errors.ts';
import { loadState } from '../domain/shared/commandHandler.ts';
import { nodeAggregate, nodeStream } from '../domain/nodes/node.ts';
import type { LedgerXRoleNodeCreatedData } from '../domain/ledgerx/ledgerxNode.ts';
import { ledgerXOf } from '../application/ledgerx/ledgerxContext.ts';
import type { NodeRow } from '../projections/nodes.ts';
import { evmOf, nodeTarget } from '../application/evm/evmContext.ts';
import { consortiumOf } from '../application/consortium/consortiumContext.ts';
import { consortiumNodeRecord } from '../application/consortium/consortiumNodeRecord.ts';

type Source = { logs(tail: number): Promise<string[]>; follow(onLine: (line: string) => void, tail: number): Promise<LogFollower> };

/** WebSocket close code of a follow refused because the node never ran (4000-4999: the application's). */
export const NEVER_RAN_CLOSE_CODE = 4409;

export class NodeNeverRanError extends AppError {
  constructor(node: NodeRow) {
    super(409, 'NODE_NEVER_RAN', `Node ${node.name} has no output: it has never run here.${node.error ? ` Its last error: ${node.error}` : ''}`, { extra: { nodeId: node.id, status: node.status } });
  }
}

export async function nodeLogSource(deps: AppDeps, node: NodeRow): Promise<Source> {
  const source = await platformLogSource(deps, node);
  const never = (err: unknown): never => {
    throw err instanceof NotFoundError ? new NodeNeverRanError(node) : err;
  };
  return {
    logs: (tail) => source.logs(tail).catch(never),
    follow: (onLine, tail) => source.follow(onLine, tail).catch(never),
  };
}

async function platformLogSource(deps: AppDeps, node: NodeRow): Promise<Source> {
  if (node.platform === 'LEDGERX') {
    const runtime = ledgerXOf(deps).runtime;
    const { state } = await loadState(deps.store, nodeStream(node.id), nodeAggregate);
    if (!state.node || state.deleted) throw new NotFoundError('Node', node.id);
    const ids = (state.node.config as { roleNodeIds?: Record<string, number> }).roleNodeIds;
    if (ids) throw new ValidationError(`Node ${node.name} is a group of Fabric-X processes with no output of its own; read its roles' logs (nodes ${Object.values(ids).join(', ')}).`, [{ field: 'id', message: 'a ledgerX group; its roles have logs' }]);
    const role = state.node as LedgerXRoleNodeCreatedData;
    return { logs: (tail) => runtime.logs(role, tail), follow: (onLine, tail) => runtime.followLogs(role, onLine, tail) };
  }
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
