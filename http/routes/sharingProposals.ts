// Channel config updates signed across instances (pro, node sharing): propose (the update goes
// to the peer sharing the organizations whose admin signatures are missing), list, sign there,
// submit here once the signatures are back.
import { Type, type Static } from '@sinclair/typebox';
import { ValidationError } from '../../domain/shared/errors.ts';
import { defineRoute } from '../route.ts';
import { createProposal, proposalFile, proposalStatus, signProposal, submitProposal, uploadProposalSignature, type ProposalChange } from '../../application/sharing/configProposals.ts';
import { sharingState } from '../../application/sharing/sharingContext.ts';
import { shareChaincode } from '../../application/sharing/sharedChaincodes.ts';
import { consortiumOf } from '../../application/consortium/consortiumContext.ts';
import { rejoinedView } from '../../application/consortium/consortiumConsenters.ts';
import { MspUpdateFields, OrdererEndpointsField, PolicyFields, RejoinedView } from './consortium/consortiumChannels.ts';

const tags = ['node sharing'];
const edition = { edition: 'pro' as const, feature: 'Node sharing' };
const ProposalParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'the proposal id (shared by both instances)' }) }, { additionalProperties: false });
const Policy = Type.Object({ type: Type.Union([Type.Literal('ImplicitMeta'), Type.Literal('Signature')]), rule: Type.String({ minLength: 1, maxLength: 2000 }) }, { additionalProperties: false });
const AnchorPeer = Type.Object({ host: Type.String({ minLength: 1, maxLength: 253 }), port: Type.Integer({ minimum: 1, maximum: 65535 }) }, { additionalProperties: false });
const ProposalChangeBody = Type.Union([
  Type.Object({
    type: Type.Literal('channel_config'),
    organizations: Type.Optional(Type.Array(Type.String({ maxLength: 250 }), { maxItems: 50, description: 'mspIds the application group should have (those not in it are added)' })),
    policies: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Policy, { description: 'application policies by name' })),
    ...PolicyFields,
    batch: Type.Optional(Type.Object({
      batchTimeout: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}(ms|s|m)$' })), maxMessageCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
      absoluteMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024 })), preferredMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024 })),
    }, { additionalProperties: false, description: 'the orderer\'s batch settings' })),
  }, { additionalProperties: false, description: 'as PUT /networks/{networkId}/channels/{channelName}/config' }),
  Type.Object({ type: Type.Literal('remove_organization'), msp_id: Type.String({ minLength: 1, maxLength: 250 }) }, { additionalProperties: false, description: 'as DELETE .../channels/{channelName}/organizations/{mspId}' }),
  Type.Object({ type: Type.Literal('anchor_peers'), organizationId: Type.String({ maxLength: 250, description: 'the mspId' }), anchorPeers: Type.Array(AnchorPeer, { maxItems: 20 }) }, { additionalProperties: false, description: 'as PUT .../channels/{channelName}/anchor-peers' }),
  Type.Object({ type: Type.Literal('consenter'), action: Type.Union([Type.Literal('add'), Type.Literal('remove'), Type.Literal('certificate')]), node_id: Type.Integer({ minimum: 1 }) }, { additionalProperties: false, description: 'as the consenter routes: add, remove, or replace the TLS certificate of the orderer node_id' }),
  Type.Object({ type: Type.Literal('revocation_list'), organization_id: Type.Integer({ minimum: 1 }) }, { additionalProperties: false, description: 'the organization\'s current CRL into its MSP in the channel' }),
  Type.Object({ type: Type.Literal('msp_update'), msp_id: Type.String({ minLength: 1, maxLength: 250 }), ...MspUpdateFields }, { additionalProperties: false, description: 'as PUT .../channels/{channelName}/organizations/{mspId}/msp (the same certificate checks, 400 MSP_CERTIFICATE)' }),
  Type.Object({ type: Type.Literal('orderer_endpoints'), msp_id: Type.String({ minLength: 1, maxLength: 250 }), endpoints: OrdererEndpointsField }, { additionalProperties: false, description: 'as PUT .../channels/{channelName}/orderer-organizations/{mspId}/endpoints' }),
  Type.Object({ type: Type.Literal('add_orderer_organization'), msp_id: Type.String({ minLength: 1, maxLength: 250 }), endpoints: OrdererEndpointsField }, { additionalProperties: false, description: 'as POST .../channels/{channelName}/orderer-organizations (the same rules: ORDERER_ORGANIZATION_EXISTS, etcdraft or BFT channels)' }),
  Type.Object({ type: Type.Literal('remove_orderer_organization'), msp_id: Type.String({ minLength: 1, maxLength: 250 }) }, { additionalProperties: false, description: 'as DELETE .../channels/{channelName}/orderer-organizations/{mspId} (etcdraft or BFT; the same rules: LAST_ORDERER_ORGANIZATION, ORDERER_ORGANIZATION_CONSENTERS, POLICY_UNSATISFIABLE)' }),
], { description: 'the change, one of the channel\'s change types' });
type ProposalChangeInput = Static<typeof ProposalChangeBody>;
/** The body's change in the use case's terms (exported for its unit test). */
export function proposalChange(c: ProposalChangeInput): ProposalChange {
  switch (c.type) {
    case 'channel_config': return c;
    case 'remove_organization': return { type: 'remove_organization', mspId: c.msp_id };
    case 'anchor_peers': return c;
    case 'consenter': return { type: 'consenter', action: c.action, nodeId: c.node_id };
    case 'revocation_list': return { type: 'revocation_list', organizationId: c.organization_id };
    case 'msp_update': {
      const { type: _t, msp_id, ...update } = c;
      return { type: 'msp_update', mspId: msp_id, update };
    }
    case 'orderer_endpoints': return { type: 'orderer_endpoints', mspId: c.msp_id, endpoints: c.endpoints };
    case 'add_orderer_organization': return { type: 'add_orderer_organization', mspId: c.msp_id, endpoints: c.endpoints };
    case 'remove_orderer_organization': return { type: 'remove_orderer_organization', mspId: c.msp_id };
  }
}
const Unmet = Type.Object({ policy_path: Type.String(), rule: Type.String(), missing_organizations: Type.Array(Type.String()), more_needed: Type.Integer() });
const ProposalCreated = Type.Object({
  status: Type.String({ description: 'awaiting-signatures, or unchanged (nothing to change)' }), proposal_id: Type.Union([Type.String(), Type.Null()]), peer_id: Type.Union([Type.Integer(), Type.Null()], { description: 'the sharing peer asked (collect peer)' }),
  sequence: Type.Optional(Type.Integer({ description: 'the config sequence the update was prepared against' })),
  policies: Type.Optional(Type.Array(Type.String())), required_organizations: Type.Optional(Type.Array(Type.String({ description: 'every organization whose admin signature the policies count' }))),
  held_organizations: Type.Optional(Type.Array(Type.String(), { description: 'of those, the ones this instance holds (signed at once)' })),
  missing_organizations: Type.Array(Type.String(), { description: 'organizations whose signatures are still missing' }), signed_by: Type.Optional(Type.Array(Type.String())), unmet: Type.Optional(Type.Array(Unmet)),
});
const ProposalView = Type.Object({
  id: Type.String(), network_id: Type.Union([Type.Integer(), Type.Null()]), channel_name: Type.String(), description: Type.String(), status: Type.String({ description: 'awaiting-signatures, signed, submitted' }),
  peer_id: Type.Union([Type.Integer(), Type.Null()]), kinds: Type.Array(Type.String(), { description: 'the change types (policies, addOrganization, removeOrganization, batch, anchorPeers, addConsenter, ...)' }),
  diff: Type.Array(Type.Unknown(), { description: 'what the update changes (path, before, after), as computed when prepared' }), changes: Type.Array(Type.String(), { description: 'the config paths the update writes, decoded from its bytes' }),
  prepared_sequence: Type.Union([Type.Integer(), Type.Null()]), current_sequence: Type.Union([Type.Integer(), Type.Null()]), stale: Type.Boolean({ description: 'the channel\'s config moved on since it was prepared: it can no longer be submitted' }),
  policies: Type.Array(Type.String()), required_organizations: Type.Array(Type.String()), signed_by: Type.Array(Type.String({ description: 'organizations whose signatures are collected' })),
  missing_organizations: Type.Array(Type.String()), unmet: Type.Array(Unmet), satisfied: Type.Boolean({ description: 'the collected signatures satisfy the policies now' }), created_at: Type.String(),
  rejoined: RejoinedView,
  signatures: Type.Array(Type.Object({
    msp_id: Type.String(), signer: Type.Union([Type.String(), Type.Null()], { description: 'the signing certificate\'s subject (CN, OU)' }),
    source: Type.Union([Type.Literal('admin'), Type.Literal('upload'), Type.Literal('peer'), Type.Null()], { description: 'signed here by an admin this instance holds, uploaded as a detached signature, or sent back by the sharing peer (null: collected before this was recorded)' }),
    at: Type.Union([Type.String(), Type.Null()], { description: 'when it was collected' }),
  }), { description: 'the signatures collected: organization, signer, how and when' }),
});
const ProposalList = Type.Object({
  items: Type.Array(Type.Object({
    id: Type.String(), role: Type.String({ description: 'proposer (prepared here) or signer (received from a peer)' }), peer_id: Type.Union([Type.Integer(), Type.Null()]), network_id: Type.Union([Type.Integer(), Type.Null()]),
    channel_name: Type.String(), description: Type.String(), status: Type.String({ description: 'awaiting-signatures, signed, submitted' }),
    changes: Type.Array(Type.String(), { description: 'the config paths the update writes, decoded from its bytes' }), kinds: Type.Array(Type.String()),
    required_organizations: Type.Array(Type.String()), missing_organizations: Type.Array(Type.String()), signed_by: Type.Array(Type.String()), created_at: Type.String(),
    rejoined: RejoinedView,
  })),
});
const ProposalFile = Type.Object({ id: Type.String(), channel_name: Type.String(), update: Type.String({ description: 'the ConfigUpdate, base64: sign signature_header || these bytes' }), envelope: Type.String({ description: 'the CONFIG_UPDATE file for peer channel signconfigtx -f, base64 (with the signatures so far)' }), changes: Type.Array(Type.String()) });
const SignatureAdded = Type.Object({ proposal_id: Type.String(), added: Type.Array(Type.String()), signed_by: Type.Array(Type.String()) });

export const sharingProposalRoutes = [
  defineRoute({
    method: 'post', path: '/nodesharing/proposals', summary: 'Create a signing proposal for a channel change that needs admin signatures this instance does not hold (any change type)', tags, permission: 'NETWORK_UPDATE', ...edition,
    description: 'The change (change.type: channel_config {organizations, policies, ordererPolicies, channelPolicies, acls, batch}, remove_organization, anchor_peers, consenter {add, remove, certificate}, revocation_list, msp_update {msp_id, rootCerts, intermediateCerts, tlsRootCerts, tlsIntermediateCerts, admins}, orderer_endpoints {msp_id, endpoints}, add_orderer_organization {msp_id, endpoints}, remove_orderer_organization {msp_id}; or the older top-level policies) is computed by the use case that owns it (its rules checked), prepared against the channel\'s current config and its modification policy evaluated; the admins this instance holds sign at once (one audited event each). collect "peer" (default) sends it to the sharing peer sharing the most of the missing organizations (sharing.proposal.shared; 409 when none does); collect "upload" keeps it here for detached signatures (GET /nodesharing/proposals/{id}/update, POST /nodesharing/proposals/{id}/signatures). Submit it with POST /nodesharing/proposals/{id}/submit once the policy is satisfied.',
    body: Type.Object({
      network_id: Type.Integer({ minimum: 1 }),
      policies: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Policy, { description: 'application policies by name: {type, rule} (the same as change {type: channel_config, policies})' })),
      change: Type.Optional(ProposalChangeBody),
      collect: Type.Optional(Type.Union([Type.Literal('peer'), Type.Literal('upload')], { description: 'where the missing signatures come from: a sharing peer (default) or detached signatures uploaded here' })),
      description: Type.Optional(Type.String({ maxLength: 1000, description: 'what the signers are asked to sign' })),
    }, { additionalProperties: false }),
    responses: {
      201: { description: 'prepared and awaiting signatures (or unchanged: 200)', schema: ProposalCreated }, 400: { description: 'no change, or both policies and change given; the change\'s own rules (MSP_CERTIFICATE, an endpoint not host:port, not an etcdraft or BFT channel); this instance holds every signature needed (no proposal needed)' },
      404: { description: 'no such network, channel, organization or orderer' }, 409: { description: 'no joined orderer, or no sharing peer shares a missing organization (collect peer); the change\'s own rules (last organization, consenter quorum, LAST_ORDERER_ORGANIZATION, ORDERER_ORGANIZATION_CONSENTERS)' }, 502: { description: 'the peer could not be reached or refused' },
    },
    async handler(input) {
      const { body } = input;
      if ((body.policies === undefined) === (body.change === undefined)) throw new ValidationError('Give either change or policies.', [{ field: 'change', message: body.change ? 'give change or policies, not both' : 'missing' }]);
      const r = await createProposal(input, body.network_id, body.change ? proposalChange(body.change) : { type: 'channel_config', policies: body.policies! }, { description: body.description ?? 'channel config update', collect: body.collect ?? 'peer' });
      return { status: r.status === 'unchanged' ? 200 : 201, body: r };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodesharing/proposals', summary: 'Config update proposals prepared here, sent to peers and received from them', tags, permission: 'SHARING_READ', ...edition,
    responses: { 200: { description: 'the proposals', schema: ProposalList } },
    async handler({ deps }) {
      const proposals = (await sharingState(deps)).proposals ?? {};
      const describe = deps.consortium ? consortiumOf(deps).channels.describeConfigUpdate : undefined;
      return {
        body: {
          items: Object.entries(proposals).map(([id, p]) => ({
            id, role: p.role, peer_id: p.sharingPeerId, network_id: p.networkId, channel_name: p.channelName, description: p.description, status: p.status,
            // What the update writes, decoded here from the bytes to be signed (not the proposer's word).
            changes: describe ? describe(Buffer.from(p.update, 'base64')).changes : [],
            kinds: p.prepared?.kinds ?? [], required_organizations: p.prepared?.requiredOrganizations ?? [],
            missing_organizations: p.missingOrganizations, signed_by: [...p.localSignatures, ...p.received].map((s) => s.mspId), created_at: p.at,
            rejoined: rejoinedView(p.rejoined),
          })),
        },
      };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodesharing/proposals/:id', summary: 'A proposal of this instance evaluated against the channel\'s current config: required, collected and missing signatures, the diff, whether it is stale', tags, permission: 'SHARING_READ', ...edition, params: ProposalParam,
    responses: { 200: { description: 'the proposal', schema: ProposalView }, 404: { description: 'no such proposal of this instance' }, 409: { description: 'no joined orderer running' } },
    async handler(input) {
      return { body: await proposalStatus(input, input.params.id) };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodesharing/proposals/:id/update', summary: 'The config update to sign offline: its bytes and the CONFIG_UPDATE file peer channel signconfigtx signs', tags, permission: 'SHARING_READ', ...edition, params: ProposalParam,
    description: 'Write envelope (base64-decoded) to a file, run `peer channel signconfigtx -f <file>` as the organization\'s admin (CORE_PEER_LOCALMSPID, CORE_PEER_MSPCONFIGPATH; no peer needed), and upload the signed file with POST /nodesharing/proposals/{id}/signatures {envelope}. Or sign signature_header || update yourself and upload {signature_header, signature}.',
    responses: { 200: { description: 'the update', schema: ProposalFile }, 404: { description: 'no such proposal of this instance' } },
    async handler(input) {
      return { body: await proposalFile(input, input.params.id) };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/proposals/:id/signatures', summary: 'Upload an organization admin\'s detached signature of a proposal (verified against its MSP in the channel)', tags, permission: 'NETWORK_UPDATE', ...edition, params: ProposalParam,
    body: Type.Object({
      signature_header: Type.Optional(Type.String({ maxLength: 20_000, description: 'ConfigSignature.signature_header, base64 (a SignatureHeader: creator = the admin\'s SerializedIdentity, nonce)' })),
      signature: Type.Optional(Type.String({ maxLength: 2_000, description: 'ConfigSignature.signature, base64: DER ECDSA (low-S) over signature_header || update' })),
      envelope: Type.Optional(Type.String({ maxLength: 5_000_000, description: 'or: the file peer channel signconfigtx signed, base64' })),
    }, { additionalProperties: false }),
    responses: {
      200: { description: 'added: the organizations whose signatures were added, and every organization that signed so far', schema: SignatureAdded },
      400: { description: 'SIGNATURE_INVALID, naming why: not an organization of the channel, not issued by its CA, expired or revoked, not an admin, does not verify over this update, high-S, an organization the update does not need; or another update\'s file' },
      404: { description: 'no such proposal of this instance' }, 409: { description: 'SIGNATURE_EXISTS (one signature per organization), PROPOSAL_SUBMITTED' },
    },
    async handler(input) {
      return { body: await uploadProposalSignature(input, input.params.id, input.body) };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/proposals/:id/sign', summary: 'Sign a received proposal with the admins of this instance\'s organizations it asks for (or some of them); the signatures go back to the proposer', tags, permission: 'NETWORK_UPDATE', ...edition, params: ProposalParam,
    query: Type.Object({ organizations: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'comma-separated mspIds: sign with these of the organizations asked for (default: all of them)' })) }, { additionalProperties: false }),
    responses: { 200: { description: 'signed and sent (sharing.signature.shared)' }, 400: { description: 'an organization the proposal does not ask for' }, 404: { description: 'no such received proposal' }, 409: { description: 'already signed' } },
    async handler(input) {
      return { body: await signProposal(input, input.params.id, input.query.organizations?.split(',').map((m) => m.trim()).filter(Boolean)) };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/proposals/:id/submit', summary: 'Submit a proposal once its policy is satisfied, evaluated again against the channel\'s current config', tags, permission: 'NETWORK_UPDATE', ...edition, params: ProposalParam,
    responses: { 200: { description: 'the channel\'s new config sequence and block; a BFT consenter removed by it: rejoined (as DELETE .../consenters/{nodeId} answers)', schema: Type.Object({ proposal_id: Type.String(), status: Type.String(), sequence: Type.Integer(), block_number: Type.Integer(), signed_by: Type.Array(Type.String()), rejoined: RejoinedView }) }, 404: { description: 'no such proposal' }, 409: { description: 'SIGNATURES_MISSING (context: missingOrganizations, requiredOrganizations, heldOrganizations, unmet), PROPOSAL_STALE (the config moved on since it was prepared: propose again; context preparedSequence, currentSequence), PROPOSAL_SUBMITTED' } },
    async handler(input) {
      return { body: await submitProposal(input, input.params.id) };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/chaincodes', summary: 'Share a chaincode definition and its source with the peer instance holding another organization of its channel', tags, permission: 'CHAINCODE_MANAGE', ...edition,
    description: 'The definition (name, version, sequence, endorsement policy, collections, initRequired) and the source files travel to the peer instance (sharing.chaincode.shared / .received), which records them as a chaincode of its copy of the channel (GET /sc/consortium/chaincodes there, with shared_from). Its operator installs it on its own peers (its own chaincode server and package id) and approves it for its organization; this instance then commits it (POST /sc/consortium/peer/{peerId}/chaincode/commit), asking the peer instance\'s peer for its endorsement, and tells the peer instance, which records the commit and starts its own chaincode server (the commit\'s answer lists the outcome in shared_with). Sharing the same chaincode again changes nothing.',
    body: Type.Object({
      chaincode_id: Type.Integer({ minimum: 1, description: 'a chaincode record of this instance (POST /sc/consortium/chaincodes)' }),
      peer_id: Type.Optional(Type.Integer({ minimum: 1, description: 'the sharing peer (GET /nodesharing/peers); default: the first active one holding an organization of the channel' })),
    }, { additionalProperties: false }),
    responses: {
      201: { description: 'shared: the peer and the chaincode\'s id there' }, 400: { description: 'the chaincode was itself received from a peer' }, 403: { description: 'the peer was revoked' },
      404: { description: 'no such chaincode or peer' }, 409: { description: 'no peer holds an organization of the channel, or the peer has another definition under that version' }, 502: { description: 'the peer could not be reached or refused' },
    },
    async handler(input) {
      return { status: 201, body: await shareChaincode(input, input.body.chaincode_id, input.body.peer_id) };
    },
  }),
];
