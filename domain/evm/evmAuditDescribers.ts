// How EVM network events read in the audit log: the network with its client, engine, genesis
// hash and validator addresses, never the genesis file itself.
import { registerStreamAuditDescriber } from '../audit/auditEntry.ts';
import type { RecordedEvent } from '../shared/eventStore.ts';
import { EVM_NETWORKS_STREAM } from './evmNetwork.ts';

const str = (v: unknown) => (v === undefined || v === null ? null : String(v));
const d = (e: RecordedEvent) => e.data as Record<string, any>;

export function registerEvmAuditDescribers(): void {
  registerStreamAuditDescriber(EVM_NETWORKS_STREAM, 'NetworkCreated', (e) => ({ action: 'CREATE', resourceType: 'network', resourceId: str(d(e).networkId), resourceName: str(d(e).name), after: { type: 'evm', client: d(e).client, engine: d(e).engine, genesisBlockHash: d(e).genesisBlockHash, validators: ((d(e).validators as Array<{ address: string }>) ?? []).map((v) => v.address) } }));
  registerStreamAuditDescriber(EVM_NETWORKS_STREAM, 'NetworkDeleted', (e) => ({ action: 'DELETE', resourceType: 'network', resourceId: str(d(e).networkId), resourceName: str(d(e).name) }));
}
