// Validator votes of a BFT evm network (QBFT, IBFT 2.0: qbft_/ibft_ JSON-RPC) or signer votes
// of a Clique network (geth or besu: clique_propose / clique_discard / clique_getSigners /
// clique_proposals) through the nodes' JSON-RPC: every running validator node the service runs
// casts (or withdraws) its vote, since a change passes only when more than half of the
// validators vote for it (SPEC Limits); the answer says the rule that applies. A BFT change
// that would leave fewer than 2f+1 validators, or a Clique change that would leave no signer,
// is refused before any vote is cast. anvil has no validator set on chain: the answer says so
// instead of pretending a vote happened.
import { Type } from '@sinclair/typebox';
import { getAddress, isAddress } from 'ethers';
import { defineRoute } from '../../route.ts';
import { ConflictError, ValidationError } from '../../../domain/shared/errors.ts';
import { applyCliqueSignerChange, applyValidatorChange, cliqueVoteRule, votesNeeded } from '../../../domain/evm/validatorRules.ts';
import { isBft, type EvmConsensus } from '../../../domain/evm/evmConsensus.ts';
import type { AppDeps } from '../../../application/deps.ts';
import type { EvmNetworkRow } from '../../../projections/evm/evmNetworks.ts';
import { evmOf, networkOr404, targetOf } from '../../../application/evm/evmContext.ts';
import { networkNodes } from '../../../application/evm/evmNodeCreate.ts';

const tags = ['evm networks'];
const NetworkIdParam = Type.Object({ networkId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

function assertVoting(network: EvmNetworkRow): void {
  if (network.client === 'anvil') {
    throw new ConflictError(`Network ${network.name} runs on anvil, a single-node development chain: it has no validator voting (qbft_/ibft_ methods do not exist there). Its validator is the one in the genesis.`, { networkId: network.id }, 'NO_VALIDATOR_VOTING');
  }
  if (!isBft(network.consensus as EvmConsensus) && network.consensus !== 'CLIQUE') throw new ConflictError(`Network ${network.name} uses ${network.consensus}; validator votes are for QBFT, IBFT 2.0 and Clique.`, { networkId: network.id }, 'NO_VALIDATOR_VOTING');
}

async function runningValidators(deps: AppDeps, network: EvmNetworkRow) {
  const nodes = (await networkNodes({ deps } as never, network.id)).filter((n) => n.role === 'validator' && n.status === 'running' && n.config.rpcHttpPort);
  if (!nodes.length) throw new ConflictError(`No validator node of network ${network.name} is running; start the network first.`, { networkId: network.id }, 'NO_RUNNING_NODE');
  return nodes.map((n) => ({ node: n, target: targetOf(n, network) }));
}

function addressOf(raw: string): string {
  if (!isAddress(raw)) throw new ValidationError(`${JSON.stringify(raw)} is not an address.`, [{ field: 'address', message: 'must be a 20-byte hex address' }]);
  return getAddress(raw);
}

export const validatorVoteRoutes = [
  defineRoute({
    method: 'get', path: '/networks/:networkId/validators/votes', summary: 'Pending validator votes of each running validator node', tags, permission: 'NETWORK_READ', params: NetworkIdParam,
    responses: { 200: { description: 'votes per node' }, 404: { description: 'no such network' }, 409: { description: 'no voting on this network, or no running validator' } },
    async handler({ deps, params }) {
      const network = await networkOr404(deps, params.networkId);
      assertVoting(network);
      const nodes = await runningValidators(deps, network);
      const votes = await Promise.all(nodes.map(async ({ node, target }) => ({ node_id: node.id, validator_address: node.validatorAddress, votes: await evmOf(deps).runtime.pendingVotes(target) })));
      return { body: { network_id: network.id, nodes: votes } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/:networkId/validators/votes', summary: 'Vote to add (add true) or remove (add false) a validator from every running validator node', tags, permission: 'NETWORK_UPDATE', params: NetworkIdParam,
    body: Type.Object({ address: Type.String(), add: Type.Boolean() }, { additionalProperties: false }),
    responses: { 200: { description: 'the votes cast' }, 400: { description: 'the change would leave fewer than 2f+1 validators' }, 409: { description: 'no voting on this network, or no running validator' } },
    async handler({ deps, params, body }) {
      const network = await networkOr404(deps, params.networkId);
      assertVoting(network);
      const address = addressOf(body.address);
      const nodes = await runningValidators(deps, network);
      const runtime = evmOf(deps).runtime;
      const current = (await runtime.chainValidators(nodes[0].target)) ?? [];
      const clique = network.consensus === 'CLIQUE';
      const change = body.add ? { add: [address] } : { remove: [address] };
      const after = clique ? applyCliqueSignerChange(current, change) : applyValidatorChange(current, change);
      const cast = await Promise.all(nodes.map(async ({ node, target }) => ({ node_id: node.id, validator_address: node.validatorAddress, recorded: await runtime.validatorVote(target, 'propose', address, body.add) })));
      const inFavour = cast.filter((c) => c.recorded).length;
      return {
        body: {
          network_id: network.id, address, add: body.add, validators_now: current.length, validators_after: after.length,
          votes_cast: inFavour, votes_needed: votesNeeded(current.length), passes: inFavour >= votesNeeded(current.length),
          rule: clique ? cliqueVoteRule(current.length, network.record.settings.cliqueEpochLength) : `more than half of the ${current.length} validators (${votesNeeded(current.length)}) must vote for the change; it applies at the next epoch boundary`,
          note: clique ? 'Each sealer carries its vote in the blocks it seals (the block\'s miner field is the vote target; clique_getSigner names the sealer); the signer set changes once the majority has sealed.' : 'A vote that passes applies at the next epoch boundary; besu drops pending votes there.', nodes: cast,
        },
      };
    },
  }),
  defineRoute({
    method: 'delete', path: '/networks/:networkId/validators/votes/:address', summary: 'Withdraw the pending vote on a validator from every running validator node', tags, permission: 'NETWORK_UPDATE',
    params: Type.Object({ networkId: Type.Integer({ minimum: 1 }), address: Type.String() }, { additionalProperties: false }),
    responses: { 200: { description: 'the votes withdrawn' }, 409: { description: 'no voting on this network, or no running validator' } },
    async handler({ deps, params }) {
      const network = await networkOr404(deps, params.networkId);
      assertVoting(network);
      const address = addressOf(params.address);
      const nodes = await runningValidators(deps, network);
      const runtime = evmOf(deps).runtime;
      const withdrawn = await Promise.all(nodes.map(async ({ node, target }) => ({ node_id: node.id, discarded: await runtime.validatorVote(target, 'discard', address, false) })));
      return { body: { network_id: network.id, address, nodes: withdrawn } };
    },
  }),
];
