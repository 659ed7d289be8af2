// LedgerX networks (stream ledgerx-networks, one stream so that names stay unique): a network is
// one Fabric-X channel whose orderer type is Arma, ordered by the parties (orderer groups) named
// at creation; the genesis block holding them is part of the created event (base64), so no
// network is recorded without its block. A group joins once (its roles get the block and start).
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';
import { assertNetworkName } from '../networks/networkName.ts';
import type { LedgerXConsensusSettings } from './ledgerxConsensus.ts';

export const LEDGERX_NETWORKS_STREAM = 'ledgerx-networks';
/** Fabric's channel name rule: lower case, [a-z][a-z0-9.-]*. */
export const LEDGERX_CHANNEL_NAME = /^[a-z][a-z0-9.-]{0,248}$/;

export interface LedgerXParty {
  nodeId: number;
  partyId: number;
  organizationId: number;
  mspId: string;
}

export interface LedgerXNetworkCreatedData {
  networkId: number;
  platform: 'LEDGERX';
  name: string;
  channelName: string;
  description: string | null;
  parties: LedgerXParty[];
  /** The genesis (bootstrap) block, base64. */
  genesisBlock: string;
  /** The SmartBFT and batching settings the block was built with (absent in networks created before they were recorded). */
  settings?: LedgerXConsensusSettings;
  at: string;
}

export type LedgerXNetworkEvent =
  | DomainEvent<'LedgerXNetworkCreated', LedgerXNetworkCreatedData>
  | DomainEvent<'LedgerXOrdererGroupJoined', { networkId: number; nodeId: number; partyId: number; at: string }>
  | DomainEvent<'LedgerXCommitterJoined', { networkId: number; nodeId: number; organizationId: number; mspId: string; at: string }>
  | DomainEvent<'LedgerXNetworkDeleted', { networkId: number; name: string; at: string }>
  // A namespace committed on the ledger through the service (the ledger holds it; this is its record for the audit log).
  | DomainEvent<'LedgerXNamespaceCreated', LedgerXNamespaceCreatedData>;

export interface LedgerXNamespaceCreatedData {
  networkId: number;
  /** The namespace's name (the audit entry's resource name). */
  name: string;
  txId: string;
  blockNumber: number;
  policyType: string;
  at: string;
}

export type LedgerXNetworkCommand =
  | ({ type: 'CreateLedgerXNetwork' } & Omit<LedgerXNetworkCreatedData, 'platform'>)
  | { type: 'RecordLedgerXOrdererGroupJoined'; networkId: number; nodeId: number; at: string }
  | { type: 'RecordLedgerXCommitterJoined'; networkId: number; nodeId: number; organizationId: number; mspId: string; at: string }
  | { type: 'DeleteLedgerXNetwork'; networkId: number; at: string }
  | ({ type: 'RecordLedgerXNamespaceCreated' } & LedgerXNamespaceCreatedData);

interface NetworkState {
  name: string;
  parties: LedgerXParty[];
  joined: number[];
  settings: LedgerXConsensusSettings | null;
}

export interface LedgerXNetworksState {
  networks: Record<number, NetworkState>;
}

function existing(s: LedgerXNetworksState, id: number): NetworkState {
  const n = s.networks[id];
  if (!n) throw new NotFoundError('Network', id);
  return n;
}

export const ledgerXNetworks: Decider<LedgerXNetworksState, LedgerXNetworkCommand, LedgerXNetworkEvent> = {
  initialState: () => ({ networks: {} }),
  evolve(s, e) {
    switch (e.type) {
      case 'LedgerXNetworkCreated':
        return { networks: { ...s.networks, [e.data.networkId]: { name: e.data.name, parties: e.data.parties, joined: [], settings: e.data.settings ?? null } } };
      case 'LedgerXOrdererGroupJoined': {
        const n = s.networks[e.data.networkId];
        return n ? { networks: { ...s.networks, [e.data.networkId]: { ...n, joined: [...n.joined, e.data.nodeId] } } } : s;
      }
      case 'LedgerXCommitterJoined': {
        const n = s.networks[e.data.networkId];
        return n ? { networks: { ...s.networks, [e.data.networkId]: { ...n, joined: [...n.joined, e.data.nodeId] } } } : s;
      }
      case 'LedgerXNetworkDeleted': {
        const { [e.data.networkId]: _gone, ...rest } = s.networks;
        return { networks: rest };
      }
      case 'LedgerXNamespaceCreated':
        return s;
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateLedgerXNetwork': {
        assertNetworkName(c.name);
        if (!LEDGERX_CHANNEL_NAME.test(c.channelName)) throw new ValidationError('channelName must be lower case letters, digits, "." and "-", starting with a letter.', [{ field: 'channelName', message: 'a Fabric channel name' }]);
        if (!c.parties.length) throw new ValidationError('A ledgerX network needs at least one orderer group.', [{ field: 'ordererGroupIds', message: 'at least one orderer group' }]);
        if (Object.values(s.networks).some((n) => n.name === c.name)) throw new ConflictError(`A ledgerX network named ${c.name} already exists.`, { field: 'name' }, 'NAME_TAKEN');
        const { type: _t, ...data } = c;
        return [{ type: 'LedgerXNetworkCreated', data: { ...data, platform: 'LEDGERX' } }];
      }
      case 'RecordLedgerXOrdererGroupJoined': {
        const n = existing(s, c.networkId);
        const party = n.parties.find((p) => p.nodeId === c.nodeId);
        if (!party) throw new ValidationError(`Node ${c.nodeId} is not an orderer group of network ${n.name}; its parties are fixed in its genesis block.`, [{ field: 'nodeId', message: 'not a party of this network' }]);
        if (n.joined.includes(c.nodeId)) throw new ConflictError(`Orderer group ${c.nodeId} has already joined network ${n.name}.`, { nodeId: c.nodeId }, 'ALREADY_JOINED');
        return [{ type: 'LedgerXOrdererGroupJoined', data: { networkId: c.networkId, nodeId: c.nodeId, partyId: party.partyId, at: c.at } }];
      }
      case 'RecordLedgerXCommitterJoined': {
        const n = existing(s, c.networkId);
        if (n.joined.includes(c.nodeId)) throw new ConflictError(`Committer ${c.nodeId} has already joined network ${n.name}.`, { nodeId: c.nodeId }, 'ALREADY_JOINED');
        const { type: _t, ...data } = c;
        return [{ type: 'LedgerXCommitterJoined', data }];
      }
      case 'DeleteLedgerXNetwork': {
        const n = existing(s, c.networkId);
        return [{ type: 'LedgerXNetworkDeleted', data: { networkId: c.networkId, name: n.name, at: c.at } }];
      }
      case 'RecordLedgerXNamespaceCreated': {
        existing(s, c.networkId);
        const { type: _t, ...data } = c;
        return [{ type: 'LedgerXNamespaceCreated', data }];
      }
      default:
        return assertNever(c);
    }
  },
};
