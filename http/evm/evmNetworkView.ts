// The evm network read shape: the record, its validators (which keys the service holds), its
// gas pricing, and a status derived from its nodes.
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../application/deps.ts';
import type { EvmNetworkRow } from '../../projections/evm/evmNetworks.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { networkNodes } from '../../application/evm/evmNodeCreate.ts';
import { DATABASE_PROVIDER_ID } from '../../domain/keyProviders/keyProviders.ts';
import { gasPricingOf } from '../../domain/evm/evmGenesis.ts';

const ValidatorView = Type.Object({
  address: Type.String(),
  key_provider: Type.Union([Type.String(), Type.Null()], { description: 'type of the provider holding the key (DATABASE, AWS_KMS, ...)' }),
  key_provider_id: Type.Union([Type.Integer(), Type.Null()]),
  key_id: Type.Union([Type.Integer(), Type.Null()], { description: 'the key under /keys (purpose VALIDATOR)' }),
  key_held: Type.Boolean(),
});
export const NetworkView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.Literal('evm'),
  description: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: 'created, running, stopped or error, derived from the nodes' }),
  genesis_block_hash: Type.String(),
  chain_id: Type.Integer(),
  consensus: Type.String({ description: 'the consensus of the genesis (what besu runs); on a development chain (client anvil) no consensus runs: see development_chain' }),
  development_chain: Type.Boolean({ description: 'true when the client is anvil: a one-node development chain that seals a block every block_time seconds with its one key; it has no validator set, no voting and no fault tolerance' }),
  runs_as: Type.String({ description: 'what the network is, in one sentence: "one-node development chain (anvil) ..." or "QBFT network of 4 validators (besu)"' }),
  block_time: Type.Integer(),
  gas_pricing: Type.Union([Type.Literal('free'), Type.Literal('priced')], { description: 'free: gas price 0 is valid (zero base fee), keys need no funds; priced: genesis.min_gas_price above 0' }),
  min_gas_price: Type.String({ description: 'wei, decimal' }),
  base_fee: Type.String({ description: 'genesis base fee, wei, decimal (0 on a free-gas network)' }),
  client: Type.String(),
  engine: Type.String(),
  placement: Type.Union([Type.Object({ hostId: Type.Optional(Type.Integer()), hostLabels: Type.Optional(Type.Record(Type.String(), Type.String())) }), Type.Null()], { description: 'where its start places the nodes it makes (POST /networks/evm placement); null: this service\'s machine' }),
  validators: Type.Array(ValidatorView),
  node_count: Type.Integer(),
  created_at: Type.String(),
});

export function networkStatus(nodes: NodeRow[]): 'created' | 'running' | 'stopped' | 'error' {
  if (nodes.some((n) => n.status === 'error' || n.status === 'down')) return 'error';
  if (nodes.some((n) => n.status === 'running')) return 'running';
  if (nodes.some((n) => n.status === 'stopped' || n.status === 'stopping')) return 'stopped';
  return 'created';
}

function gasView(n: EvmNetworkRow) {
  const gas = gasPricingOf(n.record.settings, n.record.genesis);
  return { gas_pricing: gas.free ? ('free' as const) : ('priced' as const), min_gas_price: gas.minGasPrice.toString(), base_fee: gas.baseFee.toString() };
}

const CONSENSUS_NAMES: Record<string, string> = { QBFT: 'QBFT', IBFT_2: 'IBFT 2.0', CLIQUE: 'Clique', POW: 'proof-of-work' };

/** What the network is: an anvil network shown as QBFT would suggest a validator set it does not have. */
export function runsAs(n: Pick<EvmNetworkRow, 'client' | 'consensus' | 'blockPeriodSeconds' | 'validators'>): string {
  if (n.client === 'anvil') return `one-node development chain (anvil): its one node seals a block every ${n.blockPeriodSeconds} s with the network's key; no consensus runs, so there is no validator set, no voting and no fault tolerance (the genesis names ${CONSENSUS_NAMES[n.consensus] ?? n.consensus} for besu)`;
  if (n.consensus === 'POW') return `proof-of-work network (besu) of ${n.validators.length} miner key(s)`;
  return `${CONSENSUS_NAMES[n.consensus] ?? n.consensus} network of ${n.validators.length} validator(s) (${n.client})`;
}

export async function networkView(deps: AppDeps, n: EvmNetworkRow) {
  const nodes = await networkNodes({ deps } as never, n.id);
  return {
    id: n.id,
    name: n.name,
    type: 'evm' as const,
    description: n.description,
    status: networkStatus(nodes),
    genesis_block_hash: n.genesisBlockHash,
    chain_id: n.chainId,
    consensus: n.consensus,
    development_chain: n.client === 'anvil',
    runs_as: runsAs(n),
    block_time: n.blockPeriodSeconds,
    ...gasView(n),
    client: n.client,
    engine: n.engine,
    placement: n.record.placement ?? null,
    validators: n.validators.map((v) => ({ address: v.address, key_provider: v.keyProvider, key_provider_id: v.keyHandle ? (v.providerId ?? DATABASE_PROVIDER_ID) : null, key_id: v.keyId ?? null, key_held: v.keyHandle !== null })),
    node_count: nodes.length,
    created_at: n.createdAt,
  };
}

