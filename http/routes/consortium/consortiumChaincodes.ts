// Chaincode on a consortium network's peers: records (GET/POST /sc/consortium/chaincodes), the
// lifecycle steps one by one (install, approve, commit on a peer), the whole deploy of a network,
// and invoke/query through a peer's gateway. Steps are idempotent; each answers what it did.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { listChaincodes, type ChaincodeRow } from '../../../projections/consortium/consortiumChaincodes.ts';
import { chaincodeOr404, approveFor, commitOn, installOn } from '../../../application/consortium/consortiumChaincodeSteps.ts';
import { deployChaincode, registerChaincode, runTransaction } from '../../../application/consortium/consortiumChaincodeDeploy.ts';
import { Collection, SourceFile } from '../../../application/consortium/chaincodeSchemas.ts';
import { renewChaincodeServerCertificate } from '../../../application/consortium/consortiumChaincodeServerRenew.ts';
import { consortiumNodeView, ConsortiumNodeViewSchema } from '../../consortium/consortiumNodeView.ts';

const tags = ['chaincode'];

const ChaincodeBody = Type.Object({
  networkId: Type.Integer({ minimum: 1, description: 'the consortium network (channel) the chaincode is defined on' }),
  name: Type.String({ minLength: 1, maxLength: 128, description: 'Fabric chaincode name: letters and digits, groups joined by "-" or "_"' }),
  version: Type.String({ minLength: 1, maxLength: 64, description: 'letters, digits, ".", "_", "+", "-"' }),
  sequence: Type.Optional(Type.Integer({ minimum: 1, description: 'default: 1 for a new name, the next after the committed one for a new version' })),
  language: Type.Optional(Type.Literal('node', { description: 'a Node.js chaincode (fabric-contract-api), JavaScript or TypeScript' })),
  endorsementPolicy: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: "signature policy (AND('Org1MSP.peer','Org2MSP.peer')) or a channel policy reference (/Channel/Application/Endorsement, the default)" })),
  initRequired: Type.Optional(Type.Boolean({ description: 'Fabric refuses every invoke of the chaincode until its Init transaction ran: deploy sends it after the commit (the commit step alone does not, like `peer lifecycle chaincode commit`)' })),
  init: Type.Optional(Type.Object({
    function: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'the transaction the Init calls (default: none, fabric-contract-api\'s default initiator)' })),
    args: Type.Optional(Type.Array(Type.String({ maxLength: 1_000_000 }), { maxItems: 100 })),
  }, { additionalProperties: false, description: 'initRequired only: the function and args of the Init transaction deploy sends' })),
  collections: Type.Optional(Type.Array(Collection, { maxItems: 50, description: 'private data collections (Fabric\'s collections_config.json shape), part of the definition' })),
  source: Type.Object({
    files: Type.Optional(Type.Array(SourceFile, { minItems: 1, maxItems: 200, description: 'the chaincode\'s files: package.json (main) and its .js or .ts files' })),
    archive: Type.Optional(Type.String({ maxLength: 10_000_000, description: 'the same as a .tar.gz, base64' })),
    image: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'a chaincode-as-a-service container image on the Docker host (it runs the chaincode server itself, reading CHAINCODE_ID and CHAINCODE_SERVER_ADDRESS, as Fabric\'s ccaas samples do), run under the docker engine on the host network; 400 when the image is not there, 503 when no Docker engine answers. .ci/docker.sh builds lnm-chaincode-asset-registry:local, the sample' })),
  }, { additionalProperties: false, description: 'exactly one of files, archive, image' }),
  placement: Type.Optional(Type.Object({
    hostId: Type.Integer({ minimum: 1, description: 'a registered Kubernetes cluster (POST /hosts, kind kubernetes); 400 otherwise' }),
  }, { additionalProperties: false, description: 'where the chaincode server runs, by the operator\'s choice: on that cluster, as a StatefulSet and NodePort Service, wherever the peers are (peers outside it dial its NodePort at the cluster\'s externalIp; all inside, its cluster IP). Default: with the owner organization\'s peers (on their cluster, else on this machine). Fixed by the version\'s record (another placement for the same version is a 409)' })),
  tls: Type.Optional(Type.Boolean({ description: "default true: the peers dial the chaincode server over mutual TLS (its certificate and the peers' client certificate issued by the owner organization's TLS CA; connection.json has tls_required and client_auth_required true, root_cert, client_cert, client_key). false: plain text, for a chaincode server that cannot take TLS. Fixed by the version's first install (deploying the same version with another value is a 409)" })),
}, { additionalProperties: false });
const StepBody = Type.Object({ chaincodeId: Type.Integer({ minimum: 1, description: 'the chaincode record (POST /sc/consortium/chaincodes)' }) }, { additionalProperties: false });
const PeerParams = Type.Object({ peerId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const ChaincodeParams = Type.Object({ chaincodeId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const InvokeBody = Type.Object({
  function: Type.String({ minLength: 1, maxLength: 256 }),
  args: Type.Optional(Type.Array(Type.String({ maxLength: 1_000_000 }), { maxItems: 100 })),
  transient: Type.Optional(Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 1_000_000 }), { description: 'transient data (private, not in the transaction)' })),
  organization: Type.Optional(Type.String({ minLength: 1, maxLength: 250, description: 'mspId (or organization id) whose identity signs; default the network\'s first organization this service holds' })),
  endorsingOrganizations: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 250 }), { maxItems: 50, description: 'invoke: organizations whose peers must endorse (default: the gateway picks from the endorsement policy)' })),
}, { additionalProperties: false });

const Certificate = (what: string) => Type.Object({
  key_id: Type.Integer(), serial_number: Type.Union([Type.String(), Type.Null()]), not_after: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expiry_status: Type.String({ description: 'valid, expiring (within 30 days: certificate.expiring), expired (certificate.expired)' }),
}, { description: what });
const ServerTlsSchema = Type.Union([
  Type.Object({
    server_certificate: Certificate('the server\'s own TLS certificate (serverAuth), issued by the owner organization\'s TLS CA; renewed by POST /sc/consortium/chaincodes/{chaincodeId}/server/certificates/renew'),
    peer_client_certificate: Type.Union([Certificate('the client certificate the peers present to the server; it is in the package the peers installed: a new version renews it'), Type.Null()]),
  }),
  Type.Null(),
], { description: 'the chaincode server\'s TLS certificates; null: no server yet (made at the first install) or a plain-text server (tls false)' });

const tlsCertificateView = (k: { keyId: number; serialNumber: string | null; notAfter: string | null; expiryStatus: string }) => ({ key_id: k.keyId, serial_number: k.serialNumber, not_after: k.notAfter, expiry_status: k.expiryStatus });

export function chaincodeView(c: ChaincodeRow) {
  return {
    id: c.id, network_id: c.networkId, channel_name: c.channelName, name: c.name, version: c.version, sequence: c.sequence, language: c.language,
    endorsement_policy: c.endorsementPolicy, init_required: c.initRequired, collections: c.collections, source: c.source, status: c.status, package_id: c.packageId,
    server_node_id: c.serverNodeId, server_address: c.serverAddress,
    server_tls: c.serverTls ? { server_certificate: tlsCertificateView(c.serverTls.server), peer_client_certificate: c.serverTls.peerClient ? tlsCertificateView(c.serverTls.peerClient) : null } : null,
    installed_on: Object.entries(c.installedOn).map(([peerId, packageId]) => ({ peer_id: Number(peerId), package_id: packageId })),
    approved_by: c.approvedBy, commit_tx_id: c.commitTxId, commit_block_number: c.commitBlockNumber,
    initialized: c.initRequired ? c.initializedAt !== null : null, init_tx_id: c.initTxId, init_block_number: c.initBlockNumber, previous_chaincode_id: c.previousChaincodeId,
    shared_from: c.sharedFrom ? { peer_id: c.sharedFrom.sharingPeerId, instance_id: c.sharedFrom.instanceId, chaincode_id: c.sharedFrom.chaincodeId } : null, created_at: c.createdAt, updated_at: c.updatedAt,
  };
}

const stepResponses = (what: string) => ({
  200: { description: what }, 400: { description: 'invalid body, or the node is not a peer' }, 404: { description: 'no such peer or chaincode record' },
  409: { description: 'peer not running or not joined; step missing before this one (the message names it); Fabric refused' }, 503: { description: 'a peer or orderer did not answer' },
});

export const consortiumChaincodeRoutes = [
  defineRoute({
    method: 'get', path: '/sc/consortium/chaincodes', summary: 'Chaincode records: name, version, sequence, status (registered, installed, approved, committed), where installed, who approved', tags, permission: 'CHAINCODE_READ',
    query: Type.Object({
      networkId: Type.Optional(Type.Integer({ minimum: 1 })), name: Type.Optional(Type.String({ maxLength: 128 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })), offset: Type.Optional(Type.Integer({ minimum: 0 })),
    }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of chaincode records' } },
    async handler({ deps, query }) {
      const limit = query.limit ?? 50;
      const offset = query.offset ?? 0;
      const page = await listChaincodes(deps.pool, { networkId: query.networkId, name: query.name, limit, offset });
      return { body: { items: page.items.map(chaincodeView), total: page.total, limit, offset } };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/consortium/chaincodes', summary: 'Record a chaincode definition and its source (nothing is sent to a peer yet)', tags, permission: 'CHAINCODE_MANAGE', body: ChaincodeBody,
    responses: { 201: { description: 'the record' }, 400: { description: 'name or version not as Fabric allows, bad source or policy, an image the Docker host does not have' }, 404: { description: 'no such network' }, 409: { description: 'that version exists' }, 503: { description: 'an image source, and no Docker engine answers' } },
    async handler(input) {
      return { status: 201, body: chaincodeView(await registerChaincode(input, input.body)) };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/consortium/peer/:peerId/chaincode/install', summary: 'Install the chaincode\'s package (chaincode as a service) on a peer; answers the package id', tags, permission: 'CHAINCODE_MANAGE',
    params: PeerParams, body: StepBody, responses: stepResponses('installed (or already installed): the package id'),
    async handler(input) {
      return { body: await installOn(input, await chaincodeOr404(input.deps, input.body.chaincodeId), input.params.peerId) };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/consortium/peer/:peerId/chaincode/approve', summary: 'Approve the definition for the peer\'s organization (ordered and awaited until committed)', tags, permission: 'CHAINCODE_MANAGE',
    params: PeerParams, body: StepBody, responses: stepResponses('approved, already approved, or already committed'),
    async handler(input) {
      return { body: await approveFor(input, await chaincodeOr404(input.deps, input.body.chaincodeId), input.params.peerId) };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/consortium/peer/:peerId/chaincode/commit', summary: 'Commit the definition once enough organizations approved (else 409 naming those missing); starts the chaincode server', tags, permission: 'CHAINCODE_MANAGE',
    params: PeerParams, body: StepBody, responses: stepResponses('committed (or already committed), with the chaincode server; shared_with: for a definition shared with peer instances (POST /nodesharing/chaincodes), whether each recorded the commit and started its own server'),
    async handler(input) {
      return { body: await commitOn(input, await chaincodeOr404(input.deps, input.body.chaincodeId), input.params.peerId) };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/consortium/deploy', summary: 'Deploy a chaincode on a network: record, install on every peer of the organizations held, approve for each, commit, start the server; a new version is an upgrade', tags, permission: 'CHAINCODE_MANAGE',
    body: ChaincodeBody,
    responses: { 200: { description: 'package id, sequence, peers reached, approvals, commit, init (initRequired)' }, 400: { description: 'invalid definition or source, an image the Docker host does not have' }, 404: { description: 'no such network' }, 409: { description: 'no joined peer or orderer running; Fabric refused' }, 503: { description: 'a peer or orderer did not answer; an image source and no Docker engine' } },
    async handler(input) {
      return { body: await deployChaincode(input, input.body) };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/consortium/chaincodes/:chaincodeId/server/certificates/renew', summary: 'Reissue the chaincode server\'s TLS certificate from the owner organization\'s TLS CA and restart the server to serve it', tags, permission: 'CERTIFICATE_RENEW',
    params: ChaincodeParams,
    description: 'Same key and profile (names, usages, validity of a node\'s certificate), new serial and validity (certificate.renewed on the key, audited); the running server is restarted, its start writing the certificate where it reads it (its node directory\'s tls/, or its Secret on a cluster). The peers keep the package they installed: its root_cert (the same TLS CA) verifies the new certificate, so nothing is installed again and the sequence stays. The peers\' client certificate is in that package: a new version renews it. docs/chaincode.md.',
    responses: {
      200: {
        description: 'the renewed certificate, the chaincode (server_tls with the new expiry) and its server after the restart',
        schema: Type.Object({
          certificate: Type.Object({ key_id: Type.Integer(), purpose: Type.Literal('TLS'), serial_number: Type.String(), previous_serial_number: Type.Union([Type.String(), Type.Null()]), not_after: Type.String({ format: 'date-time' }) }),
          chaincode: Type.Object({ id: Type.Integer(), name: Type.String(), version: Type.String(), server_node_id: Type.Union([Type.Integer(), Type.Null()]), server_address: Type.Union([Type.String(), Type.Null()]), server_tls: ServerTlsSchema }, { additionalProperties: true }),
          server: ConsortiumNodeViewSchema,
        }),
      },
      404: { description: 'no such chaincode' },
      409: { description: 'nothing renewed: no server yet (CHAINCODE_SERVER_MISSING: install first); a plain-text server (CHAINCODE_SERVER_NO_TLS: tls false or recorded before TLS; a new version with TLS); the server is not running (CHAINCODE_SERVER_NOT_RUNNING: stopped, starting or stopping); the organization\'s TLS CA or the peers\' client certificate changed since the package was installed (CHAINCODE_PACKAGE_CHANGED: a new version)' },
    },
    async handler(input) {
      const { certificate, server } = await renewChaincodeServerCertificate(input, input.params.chaincodeId);
      return { body: { certificate, chaincode: chaincodeView(await chaincodeOr404(input.deps, input.params.chaincodeId)), server: await consortiumNodeView(input.deps, server) } };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/consortium/chaincodes/:chaincodeId/invoke', summary: 'Submit a transaction (endorsed, ordered, committed): result, transaction id, validation code, block number', tags, permission: 'CHAINCODE_INVOKE',
    params: ChaincodeParams, body: InvokeBody,
    responses: { 200: { description: 'committed' }, 400: { description: 'invalid body, unknown organization' }, 404: { description: 'no such chaincode' }, 409: { description: 'not committed yet, no running peer, endorsement or validation failed (names the peers)' }, 422: { description: 'the chaincode rejected it: its message and status' }, 503: { description: 'a peer did not answer' } },
    async handler(input) {
      return { body: await runTransaction(input, input.params.chaincodeId, input.body, 'invoke') };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/consortium/chaincodes/:chaincodeId/query', summary: 'Evaluate a transaction on one peer (nothing is ordered): result', tags, permission: 'CHAINCODE_INVOKE',
    params: ChaincodeParams, body: InvokeBody,
    responses: { 200: { description: 'the result' }, 400: { description: 'invalid body, unknown organization' }, 404: { description: 'no such chaincode' }, 409: { description: 'not committed yet, no running peer' }, 422: { description: 'the chaincode rejected it: its message and status' }, 503: { description: 'a peer did not answer' } },
    async handler(input) {
      return { body: await runTransaction(input, input.params.chaincodeId, input.body, 'query') };
    },
  }),
];
