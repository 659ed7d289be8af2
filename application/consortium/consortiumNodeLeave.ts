// A node leaving a consortium network's channel. An orderer: when the channel config has it as a
// raft consenter it is removed from the consenters first (consortiumConsenters.ts: the rules are
// checked, and a refusal there stops the leave with nothing done), then its channel participation
// API removes the channel (osnadmin channel remove: the orderer drops the channel and its ledger).
// Recorded with RecordNodeLeft (audited, with the steps taken); the node stays a member of the
// network and may join again. The answer lists each step.
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import { consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { consortiumOf } from './consortiumContext.ts';
import { adminEndpoint, assertRunning, consortiumNetworkOr404, consortiumNodeOr404 } from './consortiumChannelAccess.ts';
import { listConsenters, removeConsenter, type ConsenterChangeResult } from './consortiumConsenters.ts';

export interface ChannelLeft {
  network: ConsortiumNetworkRow;
  node: NodeRow;
  /** What was done, in order. */
  steps: string[];
  /** The consenter removal made first, when the orderer was a consenter. */
  consenterRemoved: ConsenterChangeResult | null;
}

export async function leaveOrdererFromChannel(input: CommandInput, networkId: number, ordererId: number): Promise<ChannelLeft> {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  const node = await consortiumNodeOr404(deps, ordererId, 'orderer');
  const member = (await consortiumNetworkMembers(deps.pool, network.id)).find((m) => m.nodeId === node.id);
  if (!member?.joinedAt) throw new ValidationError(`Orderer ${node.name} has not joined channel ${network.channelName}: there is nothing to leave.`, [{ field: 'ordererId', message: 'not joined to the channel' }]);
  assertRunning(node, `leave channel ${network.channelName}`);
  const steps: string[] = [];
  const target = { networkId: network.id, channelName: network.channelName };
  const isConsenter = (await listConsenters(deps, target)).consenters.some((c) => c.nodeId === node.id);
  let consenterRemoved: ConsenterChangeResult | null = null;
  if (isConsenter) {
    consenterRemoved = await removeConsenter(input, target, node.id);
    steps.push(`removed from the channel's consenters (config sequence ${consenterRemoved.sequence}, block ${consenterRemoved.blockNumber})`);
  } else {
    steps.push('not a consenter of the channel: no config change needed');
  }
  const left = await consortiumOf(deps).channels.leaveOrderer(await adminEndpoint(deps, node), await consortiumOf(deps).credentials.adminTlsClient(node.organizationId!), network.channelName);
  steps.push(left.removed ? 'channel removed from the orderer through its channel participation API' : 'the orderer no longer had the channel');
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordNodeLeft', networkId: network.id, nodeId: node.id, role: 'orderer', steps, at: deps.clock().toISOString() });
  return { network, node, steps, consenterRemoved };
}
