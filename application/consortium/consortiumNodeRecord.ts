// A consortium node's record as created (keys, organization, role) with its current name and
// configuration: what the node's view, its logs and the use cases that renew or share it start from.
import type { AppDeps } from '../deps.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import type { ConsortiumNodeCreatedData } from '../../domain/consortium/consortiumNode.ts';

export async function consortiumNodeRecord(deps: AppDeps, row: NodeRow): Promise<ConsortiumNodeCreatedData | null> {
  const events = await deps.store.readStream(`node-${row.id}`);
  const created = events.find((e) => e.type === 'NodeCreated');
  if (!created || created.data.platform !== 'CONSORTIUM') return null;
  return { ...(created.data as unknown as ConsortiumNodeCreatedData), name: row.name, config: row.consortiumConfig! };
}
