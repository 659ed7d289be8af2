// A ledgerX network's ledger and map: namespaces (list, create through a meta-namespace
// transaction), the explorer (chain info, blocks newest first, one block, one transaction with
// its commit status) read from a joined committer, and the map of its organizations, orderer
// groups, committers and endpoints.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { IdParam } from '../schemas.ts';
import { createLedgerXNamespace, ledgerXBlock, ledgerXBlockPage, ledgerXChainInfo, ledgerXTransaction, listLedgerXNamespaces } from '../../../application/ledgerx/ledgerxLedger.ts';
import { ledgerXNetworkOr404 } from '../../../application/ledgerx/ledgerxNetworkCreate.ts';
import type { LedgerXBlock, LedgerXNamespace, LedgerXTransaction } from '../../../domain/ledgerx/ledgerxLedgerPorts.ts';
import { ledgerXNetworkMap, LedgerXMapSchema } from '../../ledgerx/ledgerxNetworkMap.ts';

const tags = ['ledgerx'];
const Str = Type.Union([Type.String(), Type.Null()]);
const noCommitter = { description: 'no joined committer runs its sidecar and query service (NO_RUNNING_COMMITTER)' };
const unreachable = { description: 'the committer\'s sidecar or query service does not answer (LEDGERX_SERVICE_UNREACHABLE)' };

const PolicyView = Type.Object({
  type: Type.String({ description: 'MSP (signatures of organizations\' members or admins), THRESHOLD (one key) or UNKNOWN' }),
  principals: Type.Optional(Type.Array(Type.Object({ msp_id: Type.String(), role: Type.String() }))),
  signatures_required: Type.Optional(Type.Integer()),
  scheme: Type.Optional(Type.String()),
  public_key: Type.Optional(Str),
});
const NamespaceView = Type.Object({ name: Type.String(), version: Type.Integer({ description: 'the version of its policy in the meta-namespace' }), policy: PolicyView });
const NamespaceBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 60, description: 'a-z, 0-9 and _ (fabric-x-committer keeps a namespace in the table ns_<name>); not _meta or _config' }),
  policy: Type.Optional(Type.Union([
    Type.Object({
      type: Type.Literal('MSP'),
      organizations: Type.Optional(Type.Array(Type.String({ maxLength: 250 }), { minItems: 1, maxItems: 50, description: 'mspIds of the channel\'s organizations (default: all of them)' })),
      role: Type.Optional(Type.Union([Type.Literal('member'), Type.Literal('admin')], { description: 'whose signature counts (default member)' })),
      signaturesRequired: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'how many of the organizations must endorse (default 1)' })),
    }, { additionalProperties: false }),
    Type.Object({
      type: Type.Literal('THRESHOLD'),
      scheme: Type.Literal('ECDSA'),
      publicKey: Type.String({ maxLength: 4000, description: 'the endorsing key, PEM (-----BEGIN PUBLIC KEY-----)' }),
    }, { additionalProperties: false }),
  ], { description: 'the namespace\'s endorsement policy; default: any member of the channel\'s organizations (MSP, 1 of n)' })),
}, { additionalProperties: false });

function namespaceView(n: LedgerXNamespace) {
  const p = n.policy;
  const policy = p.type === 'MSP' ? { type: p.type, principals: p.principals.map((x) => ({ msp_id: x.mspId, role: x.role })), signatures_required: p.signaturesRequired }
    : p.type === 'THRESHOLD' ? { type: p.type, scheme: p.scheme, public_key: p.publicKeyPem } : { type: p.type };
  return { name: n.name, version: n.version, policy };
}

const TxNamespaceView = Type.Object({ ns_id: Type.String(), ns_version: Type.Integer(), reads_only: Type.Integer(), read_writes: Type.Integer(), blind_writes: Type.Integer(), keys: Type.Array(Type.String(), { description: 'the keys written, when printable (at most 20)' }) });
const TxView = Type.Object({
  id: Type.String(), type: Type.String({ description: 'MESSAGE (a Fabric-X transaction) or CONFIG' }), creator_msp_id: Str, timestamp: Str,
  status: Str, namespaces: Type.Array(TxNamespaceView),
});
const txView = (t: LedgerXTransaction) => ({
  id: t.txId, type: t.type, creator_msp_id: t.creatorMspId, timestamp: t.timestamp, status: t.status,
  namespaces: t.namespaces.map((n) => ({ ns_id: n.nsId, ns_version: n.nsVersion, reads_only: n.readsOnly, read_writes: n.readWrites, blind_writes: n.blindWrites, keys: n.keys })),
});
const BlockSummary = {
  number: Type.Integer(), hash: Type.String(), previous_hash: Type.String(), data_hash: Type.String(), transaction_count: Type.Integer(),
  committed_count: Type.Integer({ description: 'transactions the committer marked COMMITTED' }), timestamp: Str,
};
const summary = (b: LedgerXBlock) => ({
  number: b.number, hash: b.hash, previous_hash: b.previousHash, data_hash: b.dataHash, transaction_count: b.transactionCount,
  committed_count: b.transactions.filter((t) => t.status === 'COMMITTED').length, timestamp: b.timestamp,
});

export const ledgerXLedgerRoutes = [
  defineRoute({
    method: 'get', path: '/networks/ledgerx/:id/namespaces', summary: 'The network\'s namespaces and their endorsement policies (from a joined committer\'s query service)', tags, permission: 'LEDGER_READ', params: IdParam,
    responses: { 200: { description: 'namespaces', schema: Type.Object({ items: Type.Array(NamespaceView), total: Type.Integer() }) }, 404: { description: 'no such network' }, 409: noCommitter, 503: unreachable },
    async handler(input) {
      const items = (await listLedgerXNamespaces(input, input.params.id)).map(namespaceView);
      return { body: { items, total: items.length } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/ledgerx/:id/namespaces', summary: 'Create a namespace: a meta-namespace transaction carrying its endorsement policy, endorsed by the channel\'s organizations\' admins, sent through a router and awaited until committed', tags, permission: 'NETWORK_UPDATE', params: IdParam,
    description: 'The transaction writes the namespace\'s policy under its name in the meta-namespace "_meta" (fabric-x-committer 1.0.x); the meta-namespace\'s own policy is the channel\'s LifecycleEndorsement, so every organization of the channel endorses with its admin key (held by the service\'s key provider). The answer comes once the committer gave the transaction its status (up to 60 s).',
    body: NamespaceBody,
    responses: {
      201: { description: 'the namespace, committed', schema: Type.Object({ namespace: NamespaceView, tx_id: Type.String(), status: Type.String(), block_number: Type.Integer() }) },
      400: { description: 'an invalid name or policy (an organization not in the channel, more signatures than organizations, a key that is no PEM public key)' },
      404: { description: 'no such network' },
      409: { description: 'the namespace exists (NAMESPACE_EXISTS), or no committer or router runs' },
      422: { description: 'the router or the committer refused the transaction (its status named)' },
      503: unreachable,
      504: { description: 'the committer gave no status within 60 s' },
    },
    async handler(input) {
      const r = await createLedgerXNamespace(input, input.params.id, input.body);
      return { status: 201, body: { namespace: namespaceView(r.namespace), tx_id: r.txId, status: r.status.status, block_number: r.status.blockNumber } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/:id/info', summary: 'Chain information: height, newest and previous block hash, config version, the committer read from', tags, permission: 'LEDGER_READ', params: IdParam,
    responses: {
      200: {
        description: 'chain info', schema: Type.Object({
          network_id: Type.Integer(), channel_name: Type.String(), height: Type.Integer(), current_block_hash: Type.String(), previous_block_hash: Type.String(),
          config_version: Type.Integer({ description: 'the version of the channel\'s config transaction (0 until a config update)' }),
          committer: Type.Object({ node_id: Type.Integer(), name: Type.String(), sidecar_endpoint: Type.String(), query_endpoint: Type.String() }),
        }),
      },
      404: { description: 'no such network' }, 409: noCommitter, 503: unreachable,
    },
    async handler(input) {
      const { network, access, info, configVersion } = await ledgerXChainInfo(input, input.params.id);
      return {
        body: {
          network_id: network.id, channel_name: network.channelName, height: info.height, current_block_hash: info.currentBlockHash, previous_block_hash: info.previousBlockHash,
          config_version: configVersion,
          committer: { node_id: access.committer.id, name: access.committer.name, sidecar_endpoint: `${access.sidecar.host}:${access.sidecar.port}`, query_endpoint: `${access.query.host}:${access.query.port}` },
        },
      };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/:id/blocks', summary: 'Committed blocks, newest first (limit, offset)', tags, permission: 'LEDGER_READ', params: IdParam,
    query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })), offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })) }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of blocks; total is the height', schema: Type.Object({ items: Type.Array(Type.Object(BlockSummary)), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }) }, 404: { description: 'no such network' }, 409: noCommitter, 503: unreachable },
    async handler(input) {
      const limit = input.query.limit ?? 10;
      const offset = input.query.offset ?? 0;
      const { height, blocks } = await ledgerXBlockPage(input, input.params.id, { limit, offset });
      return { body: { items: blocks.map(summary), total: height, limit, offset } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/:id/blocks/:blockNum', summary: 'One committed block with its transactions and their statuses', tags, permission: 'LEDGER_READ',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), blockNum: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the block', schema: Type.Object({ ...BlockSummary, transactions: Type.Array(TxView) }) }, 404: { description: 'no such network, or a block past the height' }, 409: noCommitter, 503: unreachable },
    async handler(input) {
      const b = await ledgerXBlock(input, input.params.id, input.params.blockNum);
      return { body: { ...summary(b), transactions: b.transactions.map(txView) } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/:id/transactions/:txId', summary: 'One transaction: its commit status from the query service (COMMITTED or the committer\'s reason), its block and content', tags, permission: 'LEDGER_READ',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), txId: Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,128}$', description: 'the transaction id (Fabric-X tools write 64 hex digits)' }) }, { additionalProperties: false }),
    responses: {
      200: { description: 'the transaction', schema: Type.Object({ ...TxView.properties, status: Type.String({ description: 'committerpb.Status: COMMITTED, ABORTED_SIGNATURE_INVALID, ABORTED_MVCC_CONFLICT, MALFORMED_... ' }), status_code: Type.Integer(), block_number: Type.Integer(), tx_number: Type.Integer() }) },
      400: { description: 'a malformed transaction id' }, 404: { description: 'no such network or transaction' }, 409: noCommitter, 503: unreachable,
    },
    async handler(input) {
      const { status, tx } = await ledgerXTransaction(input, input.params.id, input.params.txId);
      const content = tx ? txView(tx) : { id: status.txId, type: 'MESSAGE', creator_msp_id: null, timestamp: null, namespaces: [] };
      return { body: { ...content, status: status.status, status_code: status.statusCode, block_number: status.blockNumber, tx_number: status.txNumber } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/:id/map', summary: 'Organizations, their orderer groups (roles) and committers (services), endpoints and status', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the map', schema: LedgerXMapSchema }, 404: { description: 'no such network' } },
    async handler(input) {
      return { body: await ledgerXNetworkMap(input.deps, await ledgerXNetworkOr404(input, input.params.id)) };
    },
  }),
];
