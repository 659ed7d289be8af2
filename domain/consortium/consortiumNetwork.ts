// The consortium networks as one directory aggregate (stream consortium-networks): one network
// is one channel. Names are unique across consortium networks; channel names are unique too
// (two networks of one channel would share its ledger on every node). A network records its
// genesis block as it was built (or imported), which nodes are its members, which of them
// have joined, and the configuration changes made through the service. Its status stays
// genesis_created (SPEC: readiness is per node).
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';
import { assertNetworkName } from '../networks/networkName.ts';
import type { ConsortiumConsensus } from './consortiumPorts.ts';

export const CONSORTIUM_NETWORKS_STREAM = 'consortium-networks';
export const CONSORTIUM_NETWORK_STATUS = 'genesis_created';

/** Fabric's channel name rule: lower case, [a-z][a-z0-9.-]*, shorter than 250 characters. */
const CHANNEL_NAME = /^[a-z][a-z0-9.-]{0,248}$/;

export interface ConsortiumMemberOrganization {
  organizationId: number | null;
  mspId: string;
}

export interface ConsortiumMemberNode {
  nodeId: number;
  role: 'peer' | 'orderer';
  organizationId: number;
  mspId: string;
}

export interface ConsortiumNetworkCreatedData {
  networkId: number;
  platform: 'CONSORTIUM';
  name: string;
  channelName: string;
  description: string | null;
  /** etcdraft, or smartbft (Fabric 3.x BFT orderers: docs/consortium.md "SmartBFT"). */
  consensus: ConsortiumConsensus;
  /** Application (peer) organizations of the channel. */
  organizations: ConsortiumMemberOrganization[];
  ordererOrganizations: ConsortiumMemberOrganization[];
  /** host:port of the orderers, as in the channel config. */
  ordererEndpoints: string[];
  nodes: ConsortiumMemberNode[];
  batch: { batchTimeout: string; maxMessageCount: number; absoluteMaxBytes: number; preferredMaxBytes: number };
  /** Block 0 (or the imported config block), base64. */
  genesisBlock: string;
  imported: boolean;
  at: string;
}

export type ConsortiumNetworkEvent =
  | DomainEvent<'NetworkCreated', ConsortiumNetworkCreatedData>
  | DomainEvent<'ChannelCreated', { networkId: number; channelName: string; at: string }>
  | DomainEvent<'NetworkNodeAdded', { networkId: number; node: ConsortiumMemberNode; at: string }>
  | DomainEvent<'NetworkNodeJoined', { networkId: number; nodeId: number; role: 'peer' | 'orderer'; organizationId: number; mspId: string; channelName: string; at: string }>
  /** The node left the channel (an orderer through its channel participation API, a peer through unjoin); it stays a member and may join again. */
  | DomainEvent<'NetworkNodeLeft', { networkId: number; nodeId: number; role: 'peer' | 'orderer'; channelName: string; steps: string[]; at: string }>
  | DomainEvent<'NetworkOrganizationJoined', { networkId: number; organizationId: number; mspId: string; channelName: string; at: string }>
  | DomainEvent<'AnchorPeersUpdated', { networkId: number; mspId: string; anchorPeers: { host: string; port: number }[]; configSequence: number; blockNumber: number; at: string }>
  | DomainEvent<'NetworkUpdated', { networkId: number; channelName: string; change: Record<string, unknown>; configSequence: number; blockNumber: number; signedBy: string[]; at: string }>
  /** The channel's consensus migrated (etcdraft to smartbft, Fabric 3.x): later consenter changes take the BFT paths. */
  | DomainEvent<'NetworkConsensusMigrated', ConsensusMigratedData & { channelName: string }>
  | DomainEvent<'NetworkDeleted', { networkId: number; name: string; platform: 'CONSORTIUM'; at: string }>;

export interface ConsensusMigratedData {
  networkId: number;
  from: ConsortiumConsensus;
  to: ConsortiumConsensus;
  /** The config sequence and block of the update that left maintenance. */
  configSequence: number;
  blockNumber: number;
  /** What was done, in order (phases, orderers stopped, backed up, started). */
  steps: string[];
  at: string;
}

export type ConsortiumNetworkCommand =
  | ({ type: 'CreateConsortiumNetwork' } & ConsortiumNetworkCreatedData)
  | { type: 'AddNetworkNode'; networkId: number; node: ConsortiumMemberNode; at: string }
  | { type: 'RecordNodeJoined'; networkId: number; node: ConsortiumMemberNode; at: string }
  | { type: 'RecordNodeLeft'; networkId: number; nodeId: number; role: 'peer' | 'orderer'; steps: string[]; at: string }
  | { type: 'RecordAnchorPeers'; networkId: number; mspId: string; anchorPeers: { host: string; port: number }[]; configSequence: number; blockNumber: number; at: string }
  | { type: 'RecordConfigUpdate'; networkId: number; change: Record<string, unknown>; configSequence: number; blockNumber: number; signedBy: string[]; at: string }
  | ({ type: 'RecordConsensusMigrated' } & ConsensusMigratedData)
  | { type: 'DeleteConsortiumNetwork'; networkId: number; joinedNodes: { nodeId: number; name: string }[]; at: string };

export interface ConsortiumNetworkEntry {
  name: string;
  channelName: string;
  nodes: ConsortiumMemberNode[];
  joined: number[];
  joinedOrganizations: string[];
}

export interface ConsortiumNetworkDirectory {
  networks: Record<number, ConsortiumNetworkEntry>;
}

export function channelNameIssue(name: string): string | null {
  return CHANNEL_NAME.test(name) ? null : 'a channel name is lower case letters, digits, "." and "-", starting with a letter, shorter than 250 characters';
}

function network(state: ConsortiumNetworkDirectory, networkId: number): ConsortiumNetworkEntry {
  const n = state.networks[networkId];
  if (!n) throw new NotFoundError('Network', networkId);
  return n;
}

export const consortiumNetworks: Decider<ConsortiumNetworkDirectory, ConsortiumNetworkCommand, ConsortiumNetworkEvent> = {
  initialState: () => ({ networks: {} }),
  evolve(state, e) {
    const put = (id: number, f: (n: ConsortiumNetworkEntry) => ConsortiumNetworkEntry) => ({ networks: { ...state.networks, [id]: f(state.networks[id]) } });
    switch (e.type) {
      case 'NetworkCreated':
        return { networks: { ...state.networks, [e.data.networkId]: { name: e.data.name, channelName: e.data.channelName, nodes: e.data.nodes, joined: [], joinedOrganizations: [] } } };
      case 'NetworkNodeAdded':
        return put(e.data.networkId, (n) => ({ ...n, nodes: [...n.nodes, e.data.node] }));
      case 'NetworkNodeJoined':
        return put(e.data.networkId, (n) => ({ ...n, joined: [...n.joined, e.data.nodeId] }));
      case 'NetworkNodeLeft':
        return put(e.data.networkId, (n) => ({ ...n, joined: n.joined.filter((id) => id !== e.data.nodeId) }));
      case 'NetworkOrganizationJoined':
        return put(e.data.networkId, (n) => ({ ...n, joinedOrganizations: [...n.joinedOrganizations, e.data.mspId] }));
      case 'ChannelCreated':
      case 'AnchorPeersUpdated':
      case 'NetworkUpdated':
      case 'NetworkConsensusMigrated':
        return state;
      case 'NetworkDeleted': {
        const { [e.data.networkId]: _gone, ...rest } = state.networks;
        return { networks: rest };
      }
      default:
        return assertNever(e);
    }
  },
  decide(c, state) {
    switch (c.type) {
      case 'CreateConsortiumNetwork': {
        assertNetworkName(c.name);
        const issue = channelNameIssue(c.channelName);
        if (issue) throw new ValidationError(`Channel name ${c.channelName} is not one Fabric accepts: ${issue}.`, [{ field: 'channelName', message: issue }]);
        const all = Object.values(state.networks);
        if (all.some((n) => n.name.toLowerCase() === c.name.toLowerCase())) throw new ConflictError(`A network named ${c.name} already exists.`, { field: 'name' }, 'NAME_TAKEN');
        if (all.some((n) => n.channelName === c.channelName)) throw new ConflictError(`Channel ${c.channelName} already belongs to another network.`, { field: 'channelName' }, 'CHANNEL_TAKEN');
        const { type: _t, ...data } = c;
        // A created network is a new channel (its genesis block built here); an imported one existed before.
        if (c.imported) return [{ type: 'NetworkCreated', data }];
        return [{ type: 'NetworkCreated', data }, { type: 'ChannelCreated', data: { networkId: c.networkId, channelName: c.channelName, at: c.at } }];
      }
      case 'AddNetworkNode': {
        const n = network(state, c.networkId);
        if (n.nodes.some((m) => m.nodeId === c.node.nodeId)) return [];
        return [{ type: 'NetworkNodeAdded', data: { networkId: c.networkId, node: c.node, at: c.at } }];
      }
      case 'RecordNodeJoined': {
        const n = network(state, c.networkId);
        if (n.joined.includes(c.node.nodeId)) return [];
        const events: ConsortiumNetworkEvent[] = [];
        if (!n.nodes.some((m) => m.nodeId === c.node.nodeId)) events.push({ type: 'NetworkNodeAdded', data: { networkId: c.networkId, node: c.node, at: c.at } });
        events.push({ type: 'NetworkNodeJoined', data: { networkId: c.networkId, nodeId: c.node.nodeId, role: c.node.role, organizationId: c.node.organizationId, mspId: c.node.mspId, channelName: n.channelName, at: c.at } });
        if (!n.joinedOrganizations.includes(c.node.mspId)) {
          events.push({ type: 'NetworkOrganizationJoined', data: { networkId: c.networkId, organizationId: c.node.organizationId, mspId: c.node.mspId, channelName: n.channelName, at: c.at } });
        }
        return events;
      }
      case 'RecordNodeLeft': {
        const n = network(state, c.networkId);
        if (!n.joined.includes(c.nodeId)) return [];
        return [{ type: 'NetworkNodeLeft', data: { networkId: c.networkId, nodeId: c.nodeId, role: c.role, channelName: n.channelName, steps: c.steps, at: c.at } }];
      }
      case 'RecordAnchorPeers': {
        network(state, c.networkId);
        const { type: _t, ...data } = c;
        return [{ type: 'AnchorPeersUpdated', data }];
      }
      case 'RecordConfigUpdate': {
        const n = network(state, c.networkId);
        const { type: _t, ...data } = c;
        return [{ type: 'NetworkUpdated', data: { ...data, channelName: n.channelName } }];
      }
      case 'RecordConsensusMigrated': {
        const n = network(state, c.networkId);
        const { type: _t, ...data } = c;
        return [{ type: 'NetworkConsensusMigrated', data: { ...data, channelName: n.channelName } }];
      }
      case 'DeleteConsortiumNetwork': {
        const n = network(state, c.networkId);
        if (c.joinedNodes.length) {
          const names = c.joinedNodes.map((j) => `${j.name} (${j.nodeId})`).join(', ');
          throw new ConflictError(
            `Network ${n.name} still has nodes that joined channel ${n.channelName}: ${names}. A peer keeps a channel's ledger until it is deleted, and an orderer keeps ordering it: delete those nodes first, then the network.`,
            { joinedNodes: c.joinedNodes },
            'NETWORK_HAS_JOINED_NODES',
          );
        }
        return [{ type: 'NetworkDeleted', data: { networkId: c.networkId, name: n.name, platform: 'CONSORTIUM', at: c.at } }];
      }
      default:
        return assertNever(c);
    }
  },
};
