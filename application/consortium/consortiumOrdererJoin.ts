// Joining an orderer to a consortium network's channel through its channel participation API
// (mutual TLS, the organization's admin TLS client), idempotently, recorded with RecordNodeJoined.
// The join block is the network's genesis block, except on a smartbft channel for an orderer the
// genesis block names as consenter but the channel's current config does not (a consenter removed
// since): Fabric 3.1.5 would start it as a consenter of block 0 that the others ignore, so it joins
// with the channel's newest config block, which makes it a follower that pulls the chain.
// rejoinAsFollower: a BFT consenter just removed (Fabric 3.1.5 leaves it halted, still saying
// consenter) has its channel removed and is joined again that way (recorded left, then joined).
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import type { ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { consortiumOf } from './consortiumContext.ts';
import { adminEndpoint, assertRunning, consortiumNetworkOr404, consortiumNodeOr404, orderingOrderer } from './consortiumChannelAccess.ts';
import { channelConsenters } from '../../domain/consortium/consenterRules.ts';
import type { AppDeps } from '../deps.ts';

export interface ChannelJoined {
  network: ConsortiumNetworkRow;
  node: NodeRow;
  /** The node had the channel before this call (joining twice changes nothing). */
  alreadyJoined: boolean;
  /** What an orderer's channel participation API reports. */
  orderer?: { status: string; consensusRelation: string; height: number };
  /** An orderer: the number of the block it joined with (0: the genesis block); null when it had the channel. */
  joinBlockNumber?: number | null;
}

export async function joinOrdererToChannel(input: CommandInput, networkId: number, ordererId: number): Promise<ChannelJoined> {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  const node = await consortiumNodeOr404(deps, ordererId, 'orderer');
  const org = network.ordererOrganizations.find((o) => o.organizationId === node.organizationId);
  if (!org) throw new ValidationError(`Orderer ${node.name} belongs to an organization that is not an orderer organization of channel ${network.channelName}.`, [{ field: 'ordererId', message: 'an orderer of another organization' }]);
  assertRunning(node, `join channel ${network.channelName}`);
  const consortium = consortiumOf(deps);
  const endpoint = await adminEndpoint(deps, node);
  const client = await consortium.credentials.adminTlsClient(node.organizationId!);
  const before = await consortium.channels.ordererChannel(endpoint, client, network.channelName);
  const block = before ? null : await joinBlock(deps, network, node);
  const info = before ?? (await consortium.channels.joinOrderer(endpoint, client, network.channelName, block!.block));
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordNodeJoined', networkId: network.id, node: { nodeId: node.id, role: 'orderer', organizationId: node.organizationId!, mspId: org.mspId }, at: deps.clock().toISOString() });
  return { network, node, alreadyJoined: before !== null, orderer: { status: info.status, consensusRelation: info.consensusRelation, height: info.height }, joinBlockNumber: block?.blockNumber ?? null };
}

/**
 * The block an orderer joins the channel with (rules above): the genesis block, or on a smartbft
 * channel, for a consenter of the genesis block that the current config no longer has, the newest
 * config block (fetched from another orderer of the channel).
 */
async function joinBlock(deps: AppDeps, network: ConsortiumNetworkRow, node: NodeRow): Promise<{ block: Uint8Array; blockNumber: number }> {
  const genesis = { block: Buffer.from(network.genesisBlock, 'base64'), blockNumber: 0 };
  if (network.consensus !== 'smartbft') return genesis;
  const channels = consortiumOf(deps).channels;
  const endpoint = node.consortiumConfig!.externalEndpoint;
  const names = (config: Parameters<typeof channelConsenters>[0]) => channelConsenters(config).consenters.some((c) => `${c.host}:${c.port}` === endpoint);
  // No config update recorded since the genesis block (the channel's first joins): it is the current config.
  if (network.configSequence === 0 || !names(channels.decodeChannelConfig(genesis.block))) return genesis;
  const source = await orderingOrderer(deps, network, node.id);
  if (source.node.id === node.id) return genesis;
  const newest = await channels.fetchConfigBlock({ kind: 'orderer', endpoint: source.endpoint }, source.signer, network.channelName);
  return names(newest.config) ? genesis : newest;
}

export interface OrdererRejoin {
  /** What was done, in order. */
  steps: string[];
  /** What the orderer's channel participation API reports after the join. */
  status: string;
  consensusRelation: string;
  height: number;
}

/**
 * A smartbft orderer just removed from the consenters, brought back as a follower: its channel
 * removed through its channel participation API (recorded as RecordNodeLeft with the steps), then
 * joined again with the newest config block (joinOrdererToChannel; recorded as RecordNodeJoined).
 * A failure of either step is said in the steps (the config update is already in), not thrown.
 */
export async function rejoinAsFollower(input: CommandInput, network: ConsortiumNetworkRow, node: NodeRow): Promise<OrdererRejoin> {
  const { deps } = input;
  const consortium = consortiumOf(deps);
  const endpoint = await adminEndpoint(deps, node);
  const client = await consortium.credentials.adminTlsClient(node.organizationId!);
  const steps: string[] = [];
  try {
    const left = await consortium.channels.leaveOrderer(endpoint, client, network.channelName);
    steps.push(left.removed ? 'removed from the consenters: the channel removed from the orderer through its channel participation API (Fabric 3.1.5 leaves a removed BFT consenter halted)' : 'the orderer no longer had the channel');
    await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordNodeLeft', networkId: network.id, nodeId: node.id, role: 'orderer', steps: [...steps], at: deps.clock().toISOString() });
    const joined = await joinOrdererToChannel(input, network.id, node.id);
    steps.push(`joined again with block ${joined.joinBlockNumber ?? '(it had the channel)'}${joined.joinBlockNumber ? ', the channel\'s newest config block' : ''}: ${joined.orderer!.consensusRelation}, ${joined.orderer!.status}`);
    return { steps, ...joined.orderer! };
  } catch (err) {
    // The config update is in: the answer says what was done and what is left, never an error for it.
    steps.push(`not rejoined as a follower (${err instanceof Error ? err.message : String(err)}): ${steps.length ? 'join it again' : 'have it leave the channel, then join it again'} (POST /networks/consortium/${network.id}/orderers/${node.id}/join uses the newest config block)`);
    const info = await consortium.channels.ordererChannel(endpoint, client, network.channelName).catch(() => null);
    return { steps, status: info?.status ?? 'unknown', consensusRelation: info?.consensusRelation ?? 'none', height: info?.height ?? 0 };
  }
}
