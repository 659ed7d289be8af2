// A consortium network's channel: its configuration (read decoded; anchor peers, organizations
// and policies changed by the use cases of application/consortium/ through config update
// transactions signed by the admins this service holds), the explorer (chain info, blocks,
// transactions, read from a joined peer) and the map.
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteInput } from '../../route.ts';
import { IdParam } from '../schemas.ts';
import { consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../../projections/consortium/consortiumNetworks.ts';
import { listNodes } from '../../../projections/nodes.ts';
import { consortiumOf } from '../../../application/consortium/consortiumContext.ts';
import { channelNetworkOr404, consortiumNetworkOr404, joinedOrderer, networkReader } from '../../../application/consortium/consortiumChannelAccess.ts';
import type { ChannelConfigUpdated } from '../../../application/consortium/consortiumConfigChange.ts';
import type { SignatureRequirement } from '../../../domain/consortium/consortiumChannelPorts.ts';
import { setAnchorPeers } from '../../../application/consortium/consortiumAnchorPeersSet.ts';
import { addOrdererOrganization, removeOrdererOrganization, setOrdererEndpoints } from '../../../application/consortium/consortiumOrdererOrganizations.ts';
import { updateOrganizationMsp } from '../../../application/consortium/consortiumOrgMspUpdate.ts';
import { CAPABILITY_ORDER } from '../../../domain/consortium/capabilityRules.ts';
import { removeChannelOrganization, updateChannelConfig } from '../../../application/consortium/consortiumChannelConfigUpdate.ts';
import { channelBlock, channelBlockPage, channelTransaction } from '../../../application/consortium/consortiumLedgerReads.ts';
import { addConsenter, listConsenters, rejoinedView, removeConsenter, replaceConsenterCertificate, type ConsenterChangeResult } from '../../../application/consortium/consortiumConsenters.ts';
import { SmartBftOptionFields } from './consortiumNetworks.ts';

const tags = ['consortium networks'];
type Input = Pick<RouteInput<unknown, unknown, unknown>, 'identity' | 'requestId' | 'ctx' | 'deps'>;

const ChannelParams = Type.Object({ networkId: Type.Integer({ minimum: 1 }), channelName: Type.String({ maxLength: 249 }) }, { additionalProperties: false });
const AnchorPeer = Type.Object({ host: Type.String({ minLength: 1, maxLength: 253 }), port: Type.Integer({ minimum: 1, maximum: 65535 }) }, { additionalProperties: false });
const AnchorBody = Type.Object({
  organizationId: Type.String({ maxLength: 250, description: 'the organization\'s mspId (SPEC: organizationId is the mspId string)' }),
  anchorPeers: Type.Array(AnchorPeer, { maxItems: 20, description: 'host and port of its anchor peers (their gossip endpoints); [] removes them' }),
}, { additionalProperties: false });
const Policy = Type.Object({ type: Type.Union([Type.Literal('ImplicitMeta'), Type.Literal('Signature')]), rule: Type.String({ minLength: 1, maxLength: 2000 }) }, { additionalProperties: false });
const Pem = Type.String({ minLength: 1, maxLength: 16_384, pattern: '-----BEGIN CERTIFICATE-----', description: 'a PEM X.509 certificate' });
/** The MSP update's fields (PUT .../organizations/{mspId}/msp and the signing proposal's msp_update). */
export const MspUpdateFields = {
  rootCerts: Type.Optional(Type.Array(Pem, { maxItems: 10, description: 'root CA certificates to add (self-signed CAs)' })),
  intermediateCerts: Type.Optional(Type.Array(Pem, { maxItems: 10, description: 'intermediate CA certificates to add (each issued by a root or intermediate of the MSP or of this request). Adding a signing CA also makes the NodeOU identifiers CA-less, so identities of the new CA get their OU role' })),
  tlsRootCerts: Type.Optional(Type.Array(Pem, { maxItems: 10, description: 'TLS root CA certificates to add' })),
  tlsIntermediateCerts: Type.Optional(Type.Array(Pem, { maxItems: 10, description: 'TLS intermediate CA certificates to add' })),
  admins: Type.Optional(Type.Array(Pem, { maxItems: 20, description: 'the MSP\'s explicit admin certificates (replacing those it has; each issued by a signing CA of the MSP); [] removes them' })),
};
/** An orderer organization's endpoints (PUT .../orderer-organizations/{mspId}/endpoints and the signing proposal's orderer_endpoints). */
export const OrdererEndpointsField = Type.Array(Type.String({ minLength: 3, maxLength: 260 }), { minItems: 1, maxItems: 20, description: 'host:port of the organization\'s orderers, in order' });
/** Beyond SPEC's application `policies`: the orderer's and the channel's policies and the Application ACLs (docs/consortium.md). */
export const PolicyFields = {
  ordererPolicies: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Policy, { maxProperties: 4, description: '/Channel/Orderer policies by name (Readers, Writers, Admins, BlockValidation; BlockValidation not on a smartbft channel, whose consenters it is computed from): {type, rule}; a Signature rule names only orderer organizations; signed for by the orderer organizations\' admins' })),
  channelPolicies: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Policy, { maxProperties: 3, description: '/Channel policies by name (Readers, Writers, Admins): {type, rule}; an Admins rule no set of the organizations\' admins could satisfy is a 409 POLICY_UNSATISFIABLE' })),
  acls: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.String({ minLength: 1, maxLength: 250 }), { maxProperties: 64, description: 'Application ACLs: a Fabric channel resource (qscc/GetChainInfo, peer/Propose, event/Block, _lifecycle/CommitChaincodeDefinition, ... as Fabric 2.5\'s configtx.yaml lists them) to a policy reference, absolute (/Channel/Application/Writers) or relative to /Channel/Application (Admins); the others kept; read back in GET .../config (channel_group.groups.Application.values.ACLs)' })),
};
const ConfigUpdateBody = Type.Object({
  organizations: Type.Optional(Type.Array(Type.String({ maxLength: 250 }), { maxItems: 50, description: 'mspIds the channel\'s application group should have: organizations of this service not yet in it are added (removing is not supported)' })),
  policies: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Policy, { description: 'application policies by name (Readers, Writers, Admins, Endorsement, LifecycleEndorsement): {type, rule}' })),
  ...PolicyFields,
  batch: Type.Optional(Type.Object({
    batchTimeout: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}(ms|s|m)$', description: 'how long the orderer waits before cutting a block, a Go duration such as 500ms, 2s, 1m' })),
    maxMessageCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'transactions in a block at most' })),
    absoluteMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024, description: 'a block\'s size at most, in bytes' })),
    preferredMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024, description: 'the size a block is cut at, in bytes (at most absoluteMaxBytes)' })),
  }, { additionalProperties: false, description: 'the orderer\'s batch settings (the Orderer group\'s BatchTimeout and BatchSize, signed for by the orderer organizations\' admins); those not given are kept' })),
  capabilities: Type.Optional(Type.Object({
    channel: Type.Optional(Type.Union(CAPABILITY_ORDER.channel.map((c) => Type.Literal(c)), { description: 'the /Channel capability; V3_0 only once every node of the channel runs Fabric 3.x (409 CAPABILITY_NODES_BELOW_V3 naming those that do not)' })),
    orderer: Type.Optional(Type.Union(CAPABILITY_ORDER.orderer.map((c) => Type.Literal(c)), { description: 'the /Channel/Orderer capability' })),
    application: Type.Optional(Type.Union(CAPABILITY_ORDER.application.map((c) => Type.Literal(c)), { description: 'the /Channel/Application capability' })),
  }, { additionalProperties: false, description: 'capabilities per level (Fabric\'s names); those not given are kept; never lowered (400 CAPABILITY_LOWERING)' })),
  smartBftOptions: Type.Optional(Type.Object(SmartBftOptionFields, { additionalProperties: false, description: 'a smartbft channel\'s SmartBFT options (the ConsensusType metadata, signed for by the orderer organizations\' admins): those given set, the others kept; checked as at creation (docs/consortium.md)' })),
  raftOptions: Type.Optional(Type.Object({
    tickInterval: Type.Optional(Type.String({ maxLength: 20, description: 'a Go duration above zero, e.g. 500ms (created with 500ms)' })),
    electionTick: Type.Optional(Type.Integer({ minimum: 1, maximum: 4_294_967_295, description: 'above heartbeatTick (created with 10)' })),
    heartbeatTick: Type.Optional(Type.Integer({ minimum: 1, maximum: 4_294_967_295, description: 'created with 1' })),
    maxInflightBlocks: Type.Optional(Type.Integer({ minimum: 1, maximum: 4_294_967_295, description: 'created with 5' })),
    snapshotIntervalSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 4_294_967_295, description: 'bytes between raft snapshots (created with 16777216)' })),
  }, { additionalProperties: false, description: 'an etcdraft channel\'s options (etcdraft.Options in the ConsensusType metadata, signed for by the orderer organizations\' admins): those given set, the others and the consenters kept; checked as Fabric 2.5 does (docs/consortium.md); a 400 on a smartbft channel' })),
}, { additionalProperties: false });
const ConfigView = Type.Object({
  network_id: Type.Integer(), channel_name: Type.String(), block_number: Type.Integer(), sequence: Type.Integer(),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'common.Config decoded as configtxlator proto_decode gives it (channel_group, sequence)' }),
  block: Type.String({ description: 'the config block itself, base64 (for configtxlator, or to import the channel elsewhere)' }),
});
const DiffEntry = Type.Object({
  path: Type.String({ description: 'configtxlator JSON path; [] marks an array element' }),
  before: Type.Unknown({ description: 'null: added' }), after: Type.Unknown({ description: 'null: removed' }),
});
const Diff = Type.Array(DiffEntry, { description: 'what the update changes in the channel config (current against desired)' });
const Unmet = Type.Object({
  policy_path: Type.String({ description: 'a modification policy the update must satisfy, e.g. /Channel/Application/Admins' }),
  rule: Type.String({ description: 'its rule, e.g. MAJORITY Admins, or OutOf(1, \'Org1MSP.admin\')' }),
  missing_organizations: Type.Array(Type.String(), { description: 'organizations whose admin signature would count towards it' }),
  more_needed: Type.Integer({ description: 'how many more of them must sign' }),
});
/** Whose admin signatures the update needs, evaluated against the channel's current config before anything is signed (a dry run). */
const SignatureFields = {
  policies: Type.Array(Type.String(), { description: 'dry run: the modification policies the update must satisfy' }),
  required_organizations: Type.Array(Type.String(), { description: 'dry run: every organization whose admin signature those policies count' }),
  held_organizations: Type.Array(Type.String(), { description: 'dry run: those whose admin keys this service holds (they sign at once)' }),
  missing_organizations: Type.Array(Type.String(), { description: 'dry run: organizations whose admin signatures the update would still need (any more_needed of each unmet policy\'s); empty when this service can submit it alone' }),
  unmet: Type.Array(Unmet, { description: 'dry run: the policies the held signatures do not satisfy' }),
};
const UpdateView = Type.Object({
  network_id: Type.Integer(), channel_name: Type.String(), status: Type.String({ description: 'updated, unchanged or dry_run (nothing submitted)' }),
  sequence: Type.Integer(), block_number: Type.Union([Type.Integer(), Type.Null()]), signed_by: Type.Array(Type.String()),
  diff: Diff, ...SignatureFields,
});
const ConsenterParams = Type.Object({ id: Type.Integer({ minimum: 1 }), channelName: Type.String({ maxLength: 249 }) }, { additionalProperties: false });
const ConsenterNodeParams = Type.Object({ id: Type.Integer({ minimum: 1 }), channelName: Type.String({ maxLength: 249 }), nodeId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const OrdererOrgParams = Type.Object({ id: Type.Integer({ minimum: 1 }), channelName: Type.String({ maxLength: 249 }), mspId: Type.String({ minLength: 1, maxLength: 250 }) }, { additionalProperties: false });
const DryRunQuery = Type.Object({ dry_run: Type.Optional(Type.Boolean({ description: 'compute the config update and answer its diff and whose admin signatures it needs (required, held, missing organizations); submit nothing' })) }, { additionalProperties: false });
/** A removed BFT consenter brought back as a follower (consortiumConsenters.ts rejoinRemovedConsenter): the direct removal's and a consenter-removal proposal's submit answer. */
export const RejoinedView = Type.Optional(Type.Union([Type.Object({
  steps: Type.Array(Type.String()), status: Type.String(), consensus_relation: Type.String(), height: Type.Integer(),
}), Type.Null()], { description: 'a BFT consenter removed (DELETE .../consenters/{nodeId}, or a {type: consenter, action: remove} proposal submitted: recorded on the proposal, so its GET and the list say it too): its channel removed from the orderer and joined again with the newest config block, what its channel participation API says after (follower); null when not done (etcdraft, a dry run, the orderer not running, another change)' }));
const ConsenterChangeView = Type.Object({
  network_id: Type.Integer(), channel_name: Type.String(), status: Type.String({ description: 'updated, unchanged or dry_run (nothing submitted)' }),
  sequence: Type.Integer({ description: 'the config sequence after the update (dry run: the current one)' }), block_number: Type.Union([Type.Integer(), Type.Null()]),
  signed_by: Type.Array(Type.String()), diff: Diff, ...SignatureFields,
  rejoined: RejoinedView,
});
const ConsentersView = Type.Object({
  network_id: Type.Integer(), channel_name: Type.String(), sequence: Type.Integer(),
  consenters: Type.Array(Type.Object({
    host: Type.String(), port: Type.Integer(),
    bft_id: Type.Union([Type.Integer(), Type.Null()], { description: 'a BFT channel: the consenter\'s ConsenterMapping id (null on etcdraft)' }),
    node_id: Type.Union([Type.Integer(), Type.Null()]), node_name: Type.Union([Type.String(), Type.Null()]),
    node_status: Type.Union([Type.String(), Type.Null()]),
    consensus_relation: Type.Union([Type.String(), Type.Null()], { description: 'what the orderer\'s channel participation API reports: consenter, follower, ...' }),
    certificate_current: Type.Union([Type.Boolean(), Type.Null()], { description: 'the channel holds the node\'s current TLS certificate (BFT: and identity certificate); false after a renewal: replace it' }),
  })),
});
const consenterRefusals = {
  400: { description: 'rule consenter-certificate: the channel cannot verify the orderer\'s TLS certificate (BFT: or identity certificate); not an orderer of the network; not an etcdraft or BFT channel; BFT: an orderer below Fabric 3.0' },
  404: { description: 'no such network, channel, orderer or consenter' },
  409: { description: 'rule consenter-quorum (the change would lose quorum: raft floor(n/2)+1, BFT ceil((n+f+1)/2)), consenter-rotation (raft: a certificate rotation needs another running consenter; the only consenter never rotates), last-consenter, consenter-exists, consenter-unknown; SIGNATURES_MISSING (context: missingOrganizations, requiredOrganizations, heldOrganizations, unmet); no joined orderer running' },
};

async function configView(input: Input, network: ConsortiumNetworkRow) {
  const { deps } = input;
  const orderer = await joinedOrderer(deps, network);
  const fetched = await consortiumOf(deps).channels.fetchConfigBlock({ kind: 'orderer', endpoint: orderer.endpoint }, orderer.signer, network.channelName);
  return {
    network_id: network.id, channel_name: network.channelName, block_number: fetched.blockNumber, sequence: Number(fetched.config.sequence),
    config: fetched.config as unknown as Record<string, unknown>, block: Buffer.from(fetched.block).toString('base64'),
  };
}

/** The answer of a config update (anchor peers, organizations, policies, consenters): with `dryRun`, status dry_run and whose signatures it needs. */
function updateView(r: ChannelConfigUpdated & { dryRun?: boolean; requirement?: SignatureRequirement | null }) {
  const q = r.requirement;
  return {
    network_id: r.network.id, channel_name: r.network.channelName, status: r.dryRun ? 'dry_run' : r.status, sequence: r.sequence, block_number: r.blockNumber, signed_by: r.signedBy, diff: r.diff,
    policies: q?.policies ?? [], required_organizations: q?.requiredOrganizations ?? [], held_organizations: q?.heldOrganizations ?? [], missing_organizations: q?.missingOrganizations ?? [],
    unmet: (q?.unmet ?? []).map((u) => ({ policy_path: u.policyPath, rule: u.rule, missing_organizations: u.missingOrganizations, more_needed: u.moreNeeded })),
  };
}

function consenterChangeView(r: ConsenterChangeResult) {
  return { ...updateView({ ...r, status: r.status === 'dry_run' ? 'unchanged' : r.status, dryRun: r.status === 'dry_run' }), rejoined: rejoinedView(r.rejoined) };
}

const signaturesMissing409 = 'SIGNATURES_MISSING: the admin signatures this service holds do not satisfy the modification policy; context {missingOrganizations, requiredOrganizations, heldOrganizations, policies, unmet [{policyPath, rule, missingOrganizations, moreNeeded}]}; nothing submitted (collect them with POST /nodesharing/proposals). Also: no joined orderer running';
const anchorResponses = { 200: { description: 'the config update; dry_run: its diff and whose signatures it needs', schema: UpdateView }, 400: { description: 'not an organization of the channel' }, 404: { description: 'no such network or channel' }, 409: { description: signaturesMissing409 } };

export const consortiumChannelRoutes = [
  defineRoute({
    method: 'delete', path: '/networks/consortium/:id/channels/:channelName/organizations/:mspId', summary: 'Remove an application organization from the channel (its group leaves /Channel/Application; the orderer then refuses its peers); dry_run answers the diff only', tags, permission: 'NETWORK_UPDATE',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), channelName: Type.String({ maxLength: 249 }), mspId: Type.String({ minLength: 1, maxLength: 250 }) }, { additionalProperties: false }),
    query: DryRunQuery,
    responses: {
      200: { description: 'the config update and its diff', schema: ConsenterChangeView },
      404: { description: 'no such network or channel, or the organization is not an application organization of it' },
      409: { description: 'the last application organization (LAST_ORGANIZATION); SIGNATURES_MISSING (context: missingOrganizations, requiredOrganizations, heldOrganizations, unmet); no joined orderer running' },
    },
    async handler(input) {
      return { body: updateView(await removeChannelOrganization(input, { networkId: input.params.id, channelName: input.params.channelName }, input.params.mspId, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'put', path: '/networks/consortium/:id/channels/:channelName/organizations/:mspId/msp', summary: 'Update an organization\'s MSP in the channel: root or intermediate CAs (and TLS CAs) added, its admins set; certificates checked first; dry_run answers the diff only', tags, permission: 'NETWORK_UPDATE',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), channelName: Type.String({ maxLength: 249 }), mspId: Type.String({ minLength: 1, maxLength: 250 }) }, { additionalProperties: false }),
    query: DryRunQuery,
    body: Type.Object(MspUpdateFields, { additionalProperties: false }),
    responses: {
      200: { description: 'the config update and its diff; dry_run: its diff and whose signatures it needs', schema: UpdateView },
      400: { description: 'a certificate that does not parse, is not valid now, or does not chain to the MSP (MSP_CERTIFICATE, naming the field); nothing given' },
      404: { description: 'no such network or channel, or the organization is not in the channel' },
      409: { description: signaturesMissing409 },
    },
    async handler(input) {
      return { body: updateView(await updateOrganizationMsp(input, { networkId: input.params.id, channelName: input.params.channelName }, input.params.mspId, input.body, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/channels/:channelName/orderer-organizations', summary: 'Add an orderer organization to an etcdraft or BFT channel (its group, MSP and endpoints, joins /Channel/Orderer: an organization of this service or one a sharing peer shares; BFT: its own orderer endpoints and BlockValidation recomputed from the ConsenterMapping, unchanged until it holds a consenter; its orderer then joins as a follower and is added through .../consenters); dry_run answers the diff only', tags, permission: 'NETWORK_UPDATE',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), channelName: Type.String({ maxLength: 249 }) }, { additionalProperties: false }), query: DryRunQuery,
    body: Type.Object({ msp_id: Type.String({ minLength: 1, maxLength: 250 }), endpoints: OrdererEndpointsField }, { additionalProperties: false }),
    responses: {
      200: { description: 'the config update and its diff (signed as /Channel/Orderer/Admins requires); dry_run: its diff and whose signatures it needs. Once added, /Channel/Orderer/Admins counts the organization\'s admin too', schema: UpdateView },
      400: { description: 'an endpoint that is not host:port, or listed twice; an MSP id neither of this service nor shared by a sharing peer; not an etcdraft or BFT channel' },
      404: { description: 'no such network or channel' },
      409: { description: 'already an orderer organization of the channel (ORDERER_ORGANIZATION_EXISTS); SIGNATURES_MISSING (context as for every config update); no joined orderer running' },
    },
    async handler(input) {
      return { body: updateView(await addOrdererOrganization(input, { networkId: input.params.id, channelName: input.params.channelName }, input.body.msp_id, input.body.endpoints, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'put', path: '/networks/consortium/:id/channels/:channelName/orderer-organizations/:mspId/endpoints', summary: 'Set an orderer organization\'s orderer endpoints (its Endpoints value: host:port of its orderers); dry_run answers the diff only', tags, permission: 'NETWORK_UPDATE',
    params: OrdererOrgParams, query: DryRunQuery,
    body: Type.Object({ endpoints: OrdererEndpointsField }, { additionalProperties: false }),
    responses: {
      200: { description: 'the config update and its diff; dry_run: its diff and whose signatures it needs', schema: UpdateView },
      400: { description: 'an endpoint that is not host:port, or listed twice' },
      404: { description: 'no such network or channel, or not an orderer organization of it' },
      409: { description: signaturesMissing409 },
    },
    async handler(input) {
      return { body: updateView(await setOrdererEndpoints(input, { networkId: input.params.id, channelName: input.params.channelName }, input.params.mspId, input.body.endpoints, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/networks/consortium/:id/channels/:channelName/orderer-organizations/:mspId', summary: 'Remove an orderer organization from an etcdraft or BFT channel (its group, with its MSP, policies and orderer endpoints, leaves /Channel/Orderer; BFT: BlockValidation set to the policy computed from the ConsenterMapping); rules checked first; dry_run answers the diff only', tags, permission: 'NETWORK_UPDATE',
    params: OrdererOrgParams, query: DryRunQuery,
    responses: {
      200: { description: 'the config update and its diff; dry_run: its diff and whose signatures it needs', schema: UpdateView },
      400: { description: 'the channel\'s consensus is neither etcdraft nor BFT' },
      404: { description: 'no such network or channel, or not an orderer organization of it' },
      409: { description: 'the last orderer organization (LAST_ORDERER_ORGANIZATION); a consenter is the organization\'s: etcdraft, a TLS certificate of its CA; BFT, a ConsenterMapping entry with its MSP id (ORDERER_ORGANIZATION_CONSENTERS, names them: remove them from the consenters first); a /Channel or /Channel/Orderer Readers, Writers or Admins policy only its admin could satisfy (POLICY_UNSATISFIABLE, names them); SIGNATURES_MISSING (context as for every config update); no joined orderer running' },
    },
    async handler(input) {
      return { body: updateView(await removeOrdererOrganization(input, { networkId: input.params.id, channelName: input.params.channelName }, input.params.mspId, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id/channels/:channelName/consenters', summary: 'The channel\'s consenters (etcdraft or BFT): endpoint, BFT id, this service\'s orderer, what its channel participation API reports, whether the channel holds its current TLS certificate', tags, permission: 'NETWORK_READ', params: ConsenterParams,
    responses: { 200: { description: 'the consenters', schema: ConsentersView }, 400: { description: 'not an etcdraft or BFT channel' }, 404: { description: 'no such network or channel' }, 409: { description: 'no running orderer has joined the channel' } },
    async handler({ deps, params }) {
      const r = await listConsenters(deps, { networkId: params.id, channelName: params.channelName });
      return {
        body: {
          network_id: r.network.id, channel_name: r.network.channelName, sequence: r.sequence,
          consenters: r.consenters.map((c) => ({ host: c.host, port: c.port, bft_id: c.bftId, node_id: c.nodeId, node_name: c.nodeName, node_status: c.nodeStatus, consensus_relation: c.consensusRelation, certificate_current: c.certificateCurrent })),
        },
      };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/channels/:channelName/consenters', summary: 'Add an orderer of the network as a consenter, etcdraft or BFT (a follower that pulled the chain is promoted; BFT: a new ConsenterMapping id and BlockValidation policy); rules checked first; dry_run answers the diff only', tags, permission: 'NETWORK_UPDATE', params: ConsenterParams,
    query: DryRunQuery, body: Type.Object({ nodeId: Type.Integer({ minimum: 1, description: 'the orderer (a member of the network)' }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the config update and its diff', schema: ConsenterChangeView }, ...consenterRefusals },
    async handler(input) {
      return { body: consenterChangeView(await addConsenter(input, { networkId: input.params.id, channelName: input.params.channelName }, input.body.nodeId, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/networks/consortium/:id/channels/:channelName/consenters/:nodeId', summary: 'Remove an orderer from the consenters, etcdraft or BFT (etcdraft: it stays joined and turns follower; BFT: a running one is rejoined as a follower from the newest config block, see rejoined); rules checked first; dry_run answers the diff only', tags, permission: 'NETWORK_UPDATE', params: ConsenterNodeParams,
    query: DryRunQuery,
    responses: { 200: { description: 'the config update and its diff', schema: ConsenterChangeView }, ...consenterRefusals },
    async handler(input) {
      return { body: consenterChangeView(await removeConsenter(input, { networkId: input.params.id, channelName: input.params.channelName }, input.params.nodeId, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'put', path: '/networks/consortium/:id/channels/:channelName/consenters/:nodeId/certificate', summary: 'Replace a consenter\'s TLS certificate (BFT: and identity certificate) in the channel by the one the orderer has now (after POST /nodes/{id}/certificates/renew); dry_run answers the diff only', tags, permission: 'NETWORK_UPDATE', params: ConsenterNodeParams,
    query: DryRunQuery,
    responses: { 200: { description: 'the config update and its diff (unchanged when the channel holds it already)', schema: ConsenterChangeView }, ...consenterRefusals },
    async handler(input) {
      return { body: consenterChangeView(await replaceConsenterCertificate(input, { networkId: input.params.id, channelName: input.params.channelName }, input.params.nodeId, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id/channel-config', summary: 'The channel\'s current configuration, decoded (configtxlator\'s JSON shape)', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the config', schema: ConfigView }, 404: { description: 'no such network' }, 409: { description: 'no running orderer has joined the channel' } },
    async handler(input) {
      return { body: await configView(input, await consortiumNetworkOr404(input.deps, input.params.id)) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/:networkId/channels/:channelName/config', summary: 'The channel\'s current configuration, decoded', tags, permission: 'NETWORK_READ', params: ChannelParams,
    responses: { 200: { description: 'the config', schema: ConfigView }, 404: { description: 'no such network or channel' }, 409: { description: 'no running orderer has joined the channel' } },
    async handler(input) {
      return { body: await configView(input, await channelNetworkOr404(input.deps, input.params.networkId, input.params.channelName)) };
    },
  }),
  defineRoute({
    method: 'put', path: '/networks/:networkId/channels/:channelName/config', summary: 'Add organizations to the channel, change its application, orderer and channel policies, its ACLs, the orderer\'s batch settings, the capabilities, a BFT channel\'s SmartBFT options or an etcdraft channel\'s raft options (signatures collected from the admins this service holds); dry_run answers the diff only', tags, permission: 'NETWORK_UPDATE', params: ChannelParams,
    body: ConfigUpdateBody, query: DryRunQuery,
    responses: {
      200: { description: 'the config update (one transaction for everything asked) and its diff; dry_run: its diff and whose signatures it needs', schema: UpdateView },
      400: { description: 'unknown organization, removal asked, bad policy (a rule not valid, an MSP id not in the policy\'s group, an ImplicitMeta sub-policy its sub-groups do not define, a policy name not settable at that level, BlockValidation on a smartbft channel), an unknown ACL resource or an ACL policy reference the channel does not define, preferred batch size above the absolute maximum, a capability lowered (CAPABILITY_LOWERING), SmartBFT options on an etcdraft channel or not valid, raft options on a smartbft channel or not valid (electionTick not above heartbeatTick, a zero value, tickInterval not a duration above zero)' },
      404: { description: 'no such network or channel' },
      409: { description: `${signaturesMissing409}; a modification policy (Admins) no set of its group's organizations' admins could satisfy (POLICY_UNSATISFIABLE, names the rule); channel V3_0 while a node of the channel runs a release older than 3.0 (CAPABILITY_NODES_BELOW_V3, names them)` },
    },
    async handler(input) {
      return { body: updateView(await updateChannelConfig(input, input.params, input.body, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/anchor-peers', summary: 'Set an organization\'s anchor peers (config update signed by its admin, sent to an orderer)', tags, permission: 'NETWORK_UPDATE', params: IdParam,
    body: AnchorBody, query: DryRunQuery, responses: anchorResponses,
    async handler(input) {
      return { body: updateView(await setAnchorPeers(input, { networkId: input.params.id }, input.body, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'put', path: '/networks/:networkId/channels/:channelName/anchor-peers', summary: 'Set an organization\'s anchor peers', tags, permission: 'NETWORK_UPDATE', params: ChannelParams,
    body: AnchorBody, query: DryRunQuery, responses: anchorResponses,
    async handler(input) {
      return { body: updateView(await setAnchorPeers(input, input.params, input.body, { dryRun: input.query.dry_run })) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id/info', summary: 'Chain information of the channel: height, current and previous block hash (from a joined peer)', tags, permission: 'LEDGER_READ', params: IdParam,
    responses: { 200: { description: 'chain info' }, 404: { description: 'no such network' }, 409: { description: 'no running peer has joined the channel' } },
    async handler({ deps, params }) {
      const { network, reader } = await networkReader(deps, params.id);
      const info = await consortiumOf(deps).channels.chainInfo(reader, network.channelName);
      return { body: { network_id: network.id, channel_name: network.channelName, height: info.height, current_block_hash: info.currentBlockHash, previous_block_hash: info.previousBlockHash } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id/blocks', summary: 'Blocks of the channel, newest first (limit, offset)', tags, permission: 'LEDGER_READ', params: IdParam,
    query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })), offset: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of blocks: number, hash, previous hash, data hash, transaction count, timestamp' }, 404: { description: 'no such network' }, 409: { description: 'no running peer has joined the channel' } },
    async handler({ deps, params, query }) {
      const limit = query.limit ?? 10;
      const offset = query.offset ?? 0;
      const { height, blocks } = await channelBlockPage(deps, params.id, { offset, limit });
      const items = blocks.map((b) => ({ number: b.number, hash: b.hash, previous_hash: b.previousHash, data_hash: b.dataHash, transaction_count: b.transactionCount, timestamp: b.timestamp }));
      return { body: { items, total: height, limit, offset } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id/blocks/:blockNum', summary: 'One block with its decoded transactions', tags, permission: 'LEDGER_READ',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), blockNum: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the block' }, 404: { description: 'no such network or block' }, 409: { description: 'no running peer has joined the channel' } },
    async handler({ deps, params }) {
      const b = await channelBlock(deps, params.id, params.blockNum);
      return {
        body: {
          number: b.number, hash: b.hash, previous_hash: b.previousHash, data_hash: b.dataHash, transaction_count: b.transactionCount, timestamp: b.timestamp,
          transactions: b.transactions.map((t) => ({ id: t.txId, type: t.type, creator_msp_id: t.creatorMspId, timestamp: t.timestamp, validation_code: t.validationCode })),
        },
      };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id/transactions/:txId', summary: 'One transaction: type, creator, time, validation code and its block', tags, permission: 'LEDGER_READ',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), txId: Type.String({ pattern: '^[0-9a-fA-F]{1,128}$' }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the transaction' }, 404: { description: 'no such network or transaction' }, 409: { description: 'no running peer has joined the channel' } },
    async handler({ deps, params }) {
      const t = await channelTransaction(deps, params.id, params.txId);
      return { body: { id: t.txId, type: t.type, creator_msp_id: t.creatorMspId, timestamp: t.timestamp, validation_code: t.validationCode, block_number: t.blockNumber } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id/map', summary: 'Organizations, their peers and orderers, which joined, anchor peers and endpoints', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the map' }, 404: { description: 'no such network' } },
    async handler({ deps, params }) {
      const network = await consortiumNetworkOr404(deps, params.id);
      const members = await consortiumNetworkMembers(deps.pool, network.id);
      const rows = new Map((await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items.map((r) => [r.id, r]));
      const nodeOf = (m: (typeof members)[number]) => {
        const r = rows.get(m.nodeId);
        const c = r?.consortiumConfig;
        return { node_id: m.nodeId, name: r?.name ?? String(m.nodeId), status: r?.status ?? 'deleted', joined: m.joinedAt !== null, joined_at: m.joinedAt, external_endpoint: c?.externalEndpoint ?? null, hostname: c?.hostname ?? null };
      };
      const orgEntry = (o: { organizationId: number | null; mspId: string }, kind: 'application' | 'orderer') => ({
        organization_id: o.organizationId, msp_id: o.mspId, kind,
        anchor_peers: network.anchorPeers[o.mspId] ?? [],
        peers: members.filter((m) => m.role === 'peer' && m.mspId === o.mspId).map(nodeOf),
        orderers: members.filter((m) => m.role === 'orderer' && m.mspId === o.mspId).map(nodeOf),
      });
      return {
        body: {
          network_id: network.id, name: network.name, channel_name: network.channelName, orderer_endpoints: network.ordererEndpoints,
          organizations: [...network.organizations.map((o) => orgEntry(o, 'application')), ...network.ordererOrganizations.filter((o) => !network.organizations.some((a) => a.mspId === o.mspId)).map((o) => orgEntry(o, 'orderer'))],
        },
      };
    },
  }),
];
