// The evm networks as one directory aggregate (stream evm-networks), so that a name is unique
// across networks without a second store: creations are rare, and the directory is small.
// A network carries its genesis (settings and the file), the client that will run it, chosen
// at creation because block 0's hash depends on it, and its validators (addresses and the
// key-provider handles of the keys the service generated for them).
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';
import { assertNetworkName } from '../networks/networkName.ts';
import type { EvmGenesisFile } from './evmGenesis.ts';
import type { EvmGenesisSettings } from './evmGenesisInput.ts';
import type { NodePlacement } from '../hosts/nodeHosts.ts';

export const EVM_NETWORKS_STREAM = 'evm-networks';

export interface EvmValidator {
  address: string;
  /** Handle of the key in the key provider; null for a validator named by address only. */
  keyHandle: string | null;
  /** Type of that provider (DATABASE, VAULT, AWS_KMS). */
  keyProvider: string | null;
  /** The key's id in /keys and its provider's id (absent in networks made before validator keys were keys). */
  keyId?: number | null;
  providerId?: number | null;
  /** SubjectPublicKeyInfo PEM of that key (public; lets signatures be turned into (r, s, v)). */
  publicKeyPem: string | null;
}

export interface EvmNetworkCreatedData {
  networkId: number;
  name: string;
  description: string | null;
  client: 'besu' | 'anvil' | 'geth';
  engine: 'process' | 'docker';
  settings: EvmGenesisSettings;
  genesis: EvmGenesisFile;
  genesisBlockHash: string;
  validators: EvmValidator[];
  imported: boolean;
  /** The host its start places the nodes it makes on (POST /networks/evm `placement`); absent: this service's machine. */
  placement?: NodePlacement | null;
  at: string;
}

export type EvmNetworkEvent =
  | DomainEvent<'NetworkCreated', EvmNetworkCreatedData>
  | DomainEvent<'NetworkDeleted', { networkId: number; name: string; at: string }>;

export type EvmNetworkCommand =
  | ({ type: 'CreateNetwork' } & EvmNetworkCreatedData)
  | { type: 'DeleteNetwork'; networkId: number; nodeCount: number; at: string };

export interface EvmNetworkDirectory {
  /** chainId and genesisBlockHash: within one deployment no two networks share either (replay protection). */
  networks: Record<number, { name: string; chainId: number; genesisBlockHash: string }>;
}

/** The 409 of a chain id another network of the deployment uses (checked before any key is made, and again here). */
export function chainIdTaken(chainId: number, other: { id: number; name: string }): ConflictError {
  return new ConflictError(
    `Chain id ${chainId} is already used by network ${other.name} (#${other.id}): a transaction signed for one would replay on the other. Leave genesis.chain_id out to get the next free one, or choose another.`,
    { field: 'genesis.chain_id', networkId: other.id, network: other.name },
    'CHAIN_ID_TAKEN',
  );
}

export const evmNetworks: Decider<EvmNetworkDirectory, EvmNetworkCommand, EvmNetworkEvent> = {
  initialState: () => ({ networks: {} }),
  evolve(state, e) {
    switch (e.type) {
      case 'NetworkCreated':
        return { networks: { ...state.networks, [e.data.networkId]: { name: e.data.name, chainId: e.data.settings.chainId, genesisBlockHash: e.data.genesisBlockHash } } };
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
      case 'CreateNetwork': {
        assertNetworkName(c.name);
        const taken = Object.values(state.networks).some((n) => n.name.toLowerCase() === c.name.toLowerCase());
        if (taken) throw new ConflictError(`A network named ${c.name} already exists.`, { field: 'name' }, 'NAME_TAKEN');
        // A transaction signed for one chain id replays on every chain with the same id: within
        // one deployment a chain id and a block 0 belong to one network.
        const sameChain = Object.entries(state.networks).find(([, n]) => n.chainId === c.settings.chainId);
        if (sameChain) throw chainIdTaken(c.settings.chainId, { id: Number(sameChain[0]), name: sameChain[1].name });
        const sameGenesis = Object.entries(state.networks).find(([, n]) => n.genesisBlockHash === c.genesisBlockHash);
        if (sameGenesis) {
          throw new ConflictError(`Network ${sameGenesis[1].name} (#${sameGenesis[0]}) already has this genesis block (${c.genesisBlockHash}).`, { field: 'genesis', networkId: Number(sameGenesis[0]), network: sameGenesis[1].name }, 'GENESIS_TAKEN');
        }
        if (c.client === 'anvil' && c.validators.length > 1) {
          throw new ValidationError('anvil is a single-node development chain; a network of several validators needs besu.', [{ field: 'client', message: 'anvil runs one validator only' }]);
        }
        const { type: _t, ...data } = c;
        return [{ type: 'NetworkCreated', data }];
      }
      case 'DeleteNetwork': {
        const n = state.networks[c.networkId];
        if (!n) throw new NotFoundError('Network', c.networkId);
        if (c.nodeCount > 0) throw new ConflictError(`Network ${n.name} still has ${c.nodeCount} node(s); delete them first.`);
        return [{ type: 'NetworkDeleted', data: { networkId: c.networkId, name: n.name, at: c.at } }];
      }
      default:
        return assertNever(c);
    }
  },
};
