// Renewing a consortium node's certificates (its enrollment and TLS certificates issued again
// by its organization's CAs, with the names its configuration now gives); a node that runs, or
// ran and failed, is restarted so it serves them.
//
// Rule consenter-leader (409 CONSENTER_LEADER): a running orderer that is the current SmartBFT
// leader of a channel (its own consensus_BFT_is_leader metric) is not renewed. The renewal restarts
// it with certificates the channel does not hold yet, so the other consenters refuse it; as the
// leader it is the one that must order the replacement of its certificates, and ordering stalls
// until the others change view (leaderHeartbeatTimeout, 1 minute by default; a run here ordered
// nothing within two minutes). docs/consortium.md "Changing consenters and options".
import { runCommand, type CommandInput } from '../commands.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import type { ConsortiumNodeTarget } from '../../domain/consortium/consortiumPorts.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { consortiumOf } from './consortiumContext.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { nodeOr404 } from '../evm/evmContext.ts';
import { renewConsortiumNodeCertificates } from './consortiumNodeCreate.ts';

export async function renewNodeCertificates(input: CommandInput, nodeId: number): Promise<Array<{ key_id: number; purpose: string; serial_number: string; not_after: string }>> {
  const { deps } = input;
  const node = await nodeOr404(deps, nodeId);
  if (node.platform !== 'CONSORTIUM') throw new ValidationError(`Node ${node.name} is an ${node.platform.toLowerCase()} node: it has no certificates to renew (its keys are under /keys).`, [{ field: 'id', message: 'not a consortium node' }]);
  if (node.role === 'chaincode') {
    const chaincodeId = (node.config as unknown as { chaincodeId?: number }).chaincodeId;
    throw new ValidationError(`Node ${node.name} is a chaincode server (chaincode ${chaincodeId}): renew its TLS certificate from that chaincode; it has no identity certificate.`, [{ field: 'id', message: 'a chaincode server: renew its certificate from its chaincode' }]);
  }
  if (node.role === 'orderer' && node.status === 'running') {
    const { state } = await loadState(deps.store, nodeStream(node.id), nodeAggregate);
    const record = state.node as unknown as ConsortiumNodeTarget['node'];
    const target: ConsortiumNodeTarget = { node: record, organization: { organizationId: record.organizationId, name: record.mspId, mspId: record.mspId } };
    const readings = await consortiumOf(deps).runtime.ledgers(target, 2000).catch(() => null);
    const leading = (readings?.channels ?? []).filter((c) => c.bftLeader).map((c) => c.channel);
    if (leading.length) {
      throw new ConflictError(
        `Rule consenter-leader: orderer ${node.name} is the current SmartBFT leader of channel${leading.length > 1 ? 's' : ''} ${leading.join(', ')}. Renewing restarts it with certificates the channel does not hold yet, so the other consenters refuse the leader that must order their replacement, and ordering stalls until they change view. Renew a consenter that is not the leader, or stop this one first so the others elect another leader. Nothing was renewed.`,
        { rule: 'consenter-leader', channels: leading },
        'CONSENTER_LEADER',
      );
    }
  }
  const certificates = await renewConsortiumNodeCertificates(input, node);
  if (node.status === 'running' || node.status === 'down' || node.status === 'error') {
    await runCommand(input, nodeStream(node.id), nodeAggregate, { type: 'StartNode', nodeId: node.id, restart: true, at: deps.clock().toISOString() });
  }
  return certificates;
}
