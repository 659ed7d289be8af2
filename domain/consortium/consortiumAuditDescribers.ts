// How consortium network events read in the audit log: the network as the resource, never the
// genesis block itself (it is in the network's record and served by channel-config).
import { registerAuditDescriber, registerStreamAuditDescriber } from '../audit/auditEntry.ts';
import type { RecordedEvent } from '../shared/eventStore.ts';
import { CONSORTIUM_NETWORKS_STREAM } from './consortiumNetwork.ts';
import type { ConsensusMigrationEvent } from './consensusMigration.ts';

const str = (v: unknown) => (v === undefined || v === null ? null : String(v));
const d = (e: RecordedEvent) => e.data as Record<string, any>;
const net = (e: RecordedEvent) => ({ resourceType: 'network', resourceId: str(d(e).networkId) });

export function registerConsortiumAuditDescribers(): void {
  // Signing proposals (node-sharing stream): the proposal as the resource; one entry per organization's signature, never the signature bytes.
  registerAuditDescriber('ConfigProposalPrepared', (e) => ({ action: 'CREATE', resourceType: 'config_proposal', resourceId: str(d(e).proposalId), resourceName: str(d(e).channelName), details: { networkId: d(e).networkId, kinds: d(e).kinds, sequence: d(e).sequence, requiredOrganizations: d(e).requiredOrganizations, missingOrganizations: d(e).missingOrganizations } }));
  registerAuditDescriber('ConfigProposalSigned', (e) => ({ action: 'SIGN', resourceType: 'config_proposal', resourceId: str(d(e).proposalId), resourceName: str(d(e).channelName), details: { mspId: d(e).mspId, source: d(e).source } }));
  registerAuditDescriber('ConfigProposalRejoined', (e) => ({ action: 'NETWORK_UPDATE', resourceType: 'config_proposal', resourceId: str(d(e).proposalId), resourceName: str(d(e).channelName), details: { event: 'proposal.consenter.rejoined', networkId: d(e).networkId, nodeId: d(e).nodeId, consensusRelation: d(e).consensusRelation, status: d(e).status, height: d(e).height, steps: d(e).steps } }));
  registerAuditDescriber('ChannelCreated', (e) => ({ action: 'NETWORK_CREATE', ...net(e), resourceName: str(d(e).channelName), details: { event: 'network.channel.created' } }));
  registerAuditDescriber('NetworkNodeAdded', (e) => ({ action: 'NETWORK_UPDATE', ...net(e), details: { nodeId: d(e).node?.nodeId, role: d(e).node?.role, mspId: d(e).node?.mspId } }));
  registerAuditDescriber('NetworkNodeLeft', (e) => ({ action: 'NETWORK_UPDATE', ...net(e), resourceName: str(d(e).channelName), details: { event: 'node.left', nodeId: d(e).nodeId, role: d(e).role, steps: d(e).steps } }));
  registerAuditDescriber('NetworkNodeJoined', (e) => ({ action: 'NETWORK_UPDATE', ...net(e), resourceName: str(d(e).channelName), details: { event: 'node.joined', nodeId: d(e).nodeId, role: d(e).role, mspId: d(e).mspId } }));
  registerAuditDescriber('NetworkOrganizationJoined', (e) => ({ action: 'NETWORK_UPDATE', ...net(e), resourceName: str(d(e).channelName), details: { event: 'network.organization.joined', mspId: d(e).mspId } }));
  registerAuditDescriber('AnchorPeersUpdated', (e) => ({ action: 'NETWORK_UPDATE', ...net(e), after: { mspId: d(e).mspId, anchorPeers: d(e).anchorPeers, configSequence: d(e).configSequence } }));
  registerStreamAuditDescriber(CONSORTIUM_NETWORKS_STREAM, 'NetworkCreated', describeConsortiumNetworkEvent);
  registerStreamAuditDescriber(CONSORTIUM_NETWORKS_STREAM, 'NetworkDeleted', describeConsortiumNetworkEvent);
  registerAuditDescriber('NetworkConsensusMigrated', (e) => ({ action: 'NETWORK_UPDATE', ...net(e), resourceName: str(d(e).channelName), before: { consensus: d(e).from }, after: { consensus: d(e).to, configSequence: d(e).configSequence, steps: d(e).steps } }));
  // The progress of a consensus migration: the first network migrated as the resource, every one in the details.
  const migration = (e: RecordedEvent, event: string, status: 'success' | 'failed' = 'success') => ({
    action: 'NETWORK_UPDATE', resourceType: 'network', resourceId: str(d(e).networkIds?.[0]), status,
    ...(status === 'failed' ? { errorMessage: str(d(e).reason) } : {}),
    details: { event, migrationId: d(e).migrationId, networkIds: d(e).networkIds, ...(d(e).phase ? { phase: d(e).phase } : {}), ...(d(e).step ? { step: d(e).step } : {}), ...(d(e).ordererIds ? { ordererIds: d(e).ordererIds } : {}) },
  });
  const migrationEvents: Record<ConsensusMigrationEvent['type'], string> = {
    ConsensusMigrationStarted: 'consensus.migration.started',
    ConsensusMigrationPhaseReached: 'consensus.migration.phase',
    ConsensusMigrationStepDone: 'consensus.migration.step',
    ConsensusMigrationFailed: 'consensus.migration.failed',
    ConsensusMigrationCompleted: 'consensus.migration.completed',
    ConsensusMigrationResumed: 'consensus.migration.resumed',
  };
  for (const [type, event] of Object.entries(migrationEvents)) registerAuditDescriber(type, (e) => migration(e, event, type === 'ConsensusMigrationFailed' ? 'failed' : 'success'));
  registerAuditDescriber('NetworkUpdated', (e) => ({ action: 'NETWORK_UPDATE', ...net(e), resourceName: str(d(e).channelName), after: { change: d(e).change, configSequence: d(e).configSequence, signedBy: d(e).signedBy } }));
}

/** NetworkCreated / NetworkDeleted of the consortium directory stream (the evm ones are described in domain/evm/evmAuditDescribers.ts). */
function describeConsortiumNetworkEvent(e: RecordedEvent) {
  if (e.type === 'NetworkDeleted') return { action: 'NETWORK_DELETE', ...net(e), resourceName: str(d(e).name) };
  return {
    action: 'NETWORK_CREATE', ...net(e), resourceName: str(d(e).name),
    after: { type: 'consortium', channelName: d(e).channelName, imported: d(e).imported, organizations: d(e).organizations, ordererOrganizations: d(e).ordererOrganizations, ordererEndpoints: d(e).ordererEndpoints },
  };
}
