// Channel config updates signed across instances (pro, node sharing): propose (the update goes
// to the peer sharing the organizations whose admin signatures are missing), list, sign there,
// submit here once the signatures are back.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { proposeConfigUpdate, signProposal, submitProposal } from '../../application/sharing/configProposals.ts';
import { sharingState } from '../../application/sharing/sharingContext.ts';
import { shareChaincode } from '../../application/sharing/sharedChaincodes.ts';
import { consortiumOf } from '../../application/consortium/consortiumContext.ts';

const tags = ['node sharing'];
const edition = { edition: 'pro' as const, feature: 'Node sharing' };
const ProposalParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'the proposal id (shared by both instances)' }) }, { additionalProperties: false });
const Policy = Type.Object({ type: Type.Union([Type.Literal('ImplicitMeta'), Type.Literal('Signature')]), rule: Type.String({ minLength: 1, maxLength: 2000 }) }, { additionalProperties: false });

export const sharingProposalRoutes = [
  defineRoute({
    method: 'post', path: '/nodesharing/proposals', summary: 'Propose a channel config update that needs an admin signature held by a peer instance', tags, permission: 'NETWORK_UPDATE', ...edition,
    description: 'The update (application policies) is prepared against the channel\'s current config, signed by the admins this instance holds, and sent to the sharing peer that shares every organization whose signature is missing (sharing.proposal.shared). Submit it with POST /nodesharing/proposals/{id}/submit once that peer signed.',
    body: Type.Object({
      network_id: Type.Integer({ minimum: 1 }),
      policies: Type.Record(Type.String({ maxLength: 64 }), Policy, { description: 'application policies by name: {type, rule}' }),
      description: Type.Optional(Type.String({ maxLength: 1000, description: 'what the peer\'s operator is asked to sign' })),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'sent for signatures (or unchanged)' }, 404: { description: 'no such network' }, 409: { description: 'no joined orderer, or no sharing peer holds the missing signatures' } },
    async handler(input) {
      const r = await proposeConfigUpdate(input, input.body.network_id, input.body.policies, input.body.description ?? 'channel policy update');
      return { status: r.status === 'unchanged' ? 200 : 201, body: r };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodesharing/proposals', summary: 'Config update proposals sent to peers and received from them', tags, permission: 'SHARING_READ', ...edition,
    responses: { 200: { description: 'the proposals' } },
    async handler({ deps }) {
      const proposals = (await sharingState(deps)).proposals ?? {};
      const describe = deps.consortium ? consortiumOf(deps).channels.describeConfigUpdate : undefined;
      return {
        body: {
          items: Object.entries(proposals).map(([id, p]) => ({
            id, role: p.role, peer_id: p.sharingPeerId, network_id: p.networkId, channel_name: p.channelName, description: p.description, status: p.status,
            // What the update writes, decoded here from the bytes to be signed (not the proposer's word).
            changes: describe ? describe(Buffer.from(p.update, 'base64')).changes : [],
            missing_organizations: p.missingOrganizations, signed_by: [...p.localSignatures, ...p.received].map((s) => s.mspId), created_at: p.at,
          })),
        },
      };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/proposals/:id/sign', summary: 'Sign a received proposal with the admins of this instance\'s organizations it asks for; the signatures go back to the proposer', tags, permission: 'NETWORK_UPDATE', ...edition, params: ProposalParam,
    responses: { 200: { description: 'signed and sent (sharing.signature.shared)' }, 404: { description: 'no such received proposal' }, 409: { description: 'already signed' } },
    async handler(input) {
      return { body: await signProposal(input, input.params.id) };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/proposals/:id/submit', summary: 'Submit a proposal with every signature to the channel\'s orderer', tags, permission: 'NETWORK_UPDATE', ...edition, params: ProposalParam,
    responses: { 200: { description: 'the channel\'s new config sequence and block' }, 404: { description: 'no such proposal' }, 409: { description: 'signatures still missing, or already submitted' } },
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
