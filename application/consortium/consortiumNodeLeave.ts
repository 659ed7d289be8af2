// A node leaving a consortium network's channel. An orderer: when the channel config has it as a
// raft consenter it is removed from the consenters first (consortiumConsenters.ts: the rules are
// checked, and a refusal there stops the leave with nothing done), then its channel participation
// API removes the channel (osnadmin channel remove: the orderer drops the channel and its ledger).
// Recorded with RecordNodeLeft (audited, with the steps taken); the node stays a member of the
// network and may join again. The answer lists each step.
//
// A peer: Fabric 2.5 has no API to leave a channel; `peer node unjoin` drops the channel's ledger
// and needs the peer stopped. When the peer is an anchor peer of its organization on the channel,
// the anchor peer update removes it first (consortiumAnchorPeersSet.ts; a refusal stops the leave
// with nothing done). Then the peer is stopped through the runtime, unjoined with its own config,
// and started again through the node lifecycle (a StartNode restart command, so its new process
// is recorded as any start is). A docker engine peer (here or on a node host) is unjoined the same
// way: its container stopped, `peer node unjoin` run in a one-off container of its image on its
// node directory (the volume on a node host), its container started again.
import { runCommand, type CommandInput } from '../commands.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import { consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { consortiumOf } from './consortiumContext.ts';
import { adminEndpoint, assertRunning, consortiumNetworkOr404, consortiumNodeOr404 } from './consortiumChannelAccess.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import type { ConsortiumNodeTarget } from '../../domain/consortium/consortiumPorts.ts';
import { setAnchorPeers } from './consortiumAnchorPeersSet.ts';
import type { ChannelConfigUpdated } from './consortiumConfigChange.ts';
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
    consenterRemoved = await removeConsenter(input, target, node.id, { rejoin: false });
    steps.push(`removed from the channel's consenters (config sequence ${consenterRemoved.sequence}, block ${consenterRemoved.blockNumber})`);
  } else {
    steps.push('not a consenter of the channel: no config change needed');
  }
  const left = await consortiumOf(deps).channels.leaveOrderer(await adminEndpoint(deps, node), await consortiumOf(deps).credentials.adminTlsClient(node.organizationId!), network.channelName);
  steps.push(left.removed ? 'channel removed from the orderer through its channel participation API' : 'the orderer no longer had the channel');
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordNodeLeft', networkId: network.id, nodeId: node.id, role: 'orderer', steps, at: deps.clock().toISOString() });
  return { network, node, steps, consenterRemoved };
}

export interface PeerChannelLeft extends Omit<ChannelLeft, 'consenterRemoved'> {
  /** The anchor peer update made first, when the peer was an anchor peer of its organization. */
  anchorPeersUpdated: Omit<ChannelConfigUpdated, 'network'> | null;
  /** The peer was stopped for `peer node unjoin` and started again. */
  restarted: true;
}

const endpointOf = (a: { host: string; port: number }) => `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;

/** Whether an anchor peer entry names this peer: its external endpoint, or its port under one of its names (loopback for a local peer). */
function namesPeer(a: { host: string; port: number }, node: ConsortiumNodeTarget['node']): boolean {
  const c = node.config as ConsortiumNodeTarget['node']['config'] & { domainNames?: string[]; externalIp?: string };
  if (endpointOf(a) === c.externalEndpoint) return true;
  const external = c.externalEndpoint.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const names = [external, c.hostname, ...(c.domainNames ?? []), ...(c.externalIp ? [c.externalIp] : []), ...(c.hostId ? [] : ['127.0.0.1', 'localhost'])];
  return a.port === c.port && names.includes(a.host);
}

export async function leavePeerFromChannel(input: CommandInput, networkId: number, peerId: number): Promise<PeerChannelLeft> {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  const node = await consortiumNodeOr404(deps, peerId, 'peer');
  const member = (await consortiumNetworkMembers(deps.pool, network.id)).find((m) => m.nodeId === node.id);
  if (!member?.joinedAt) throw new ConflictError(`Peer ${node.name} has not joined channel ${network.channelName}: there is nothing to leave.`);
  assertRunning(node, `leave channel ${network.channelName}`);
  const { state } = await loadState(deps.store, nodeStream(node.id), nodeAggregate);
  const record = state.node as unknown as ConsortiumNodeTarget['node'] | null;
  if (!record) throw new ConflictError(`Peer ${node.name} is not recorded.`);
  const consortium = consortiumOf(deps);
  const target: ConsortiumNodeTarget = { node: record, organization: { organizationId: record.organizationId, name: record.mspId, mspId: record.mspId } };
  const steps: string[] = [];
  const anchors = network.anchorPeers?.[member.mspId] ?? [];
  const remaining = anchors.filter((a) => !namesPeer(a, record));
  let anchorPeersUpdated: PeerChannelLeft['anchorPeersUpdated'] = null;
  if (remaining.length !== anchors.length) {
    const { network: _n, dryRun: _d, requirement: _r, ...updated } = await setAnchorPeers(input, { networkId: network.id }, { organizationId: member.mspId, anchorPeers: remaining });
    anchorPeersUpdated = updated;
    steps.push(`removed from ${member.mspId}'s anchor peers (config sequence ${updated.sequence}, block ${updated.blockNumber ?? 'none'})`);
  } else {
    steps.push(`not an anchor peer of ${member.mspId}: no config change needed`);
  }
  try {
    await consortium.runtime.stop(target);
    steps.push('peer stopped (peer node unjoin needs it stopped)');
    await consortium.runtime.unjoinPeer(target, network.channelName);
    steps.push(`peer node unjoin -c ${network.channelName}: the channel's ledger removed from the peer`);
  } finally {
    // Started again whether or not the stop and unjoin worked: the leave never leaves the peer down.
    await runCommand(input, nodeStream(node.id), nodeAggregate, { type: 'StartNode', nodeId: node.id, restart: true, at: deps.clock().toISOString() });
  }
  steps.push('peer started again (restart requested through the node lifecycle)');
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordNodeLeft', networkId: network.id, nodeId: node.id, role: 'peer', steps, at: deps.clock().toISOString() });
  return { network, node, steps, anchorPeersUpdated, restarted: true };
}
