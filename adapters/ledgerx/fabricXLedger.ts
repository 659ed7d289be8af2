// The ledger of a running Fabric-X network (domain/ledgerx/ledgerxLedgerPorts.ts LedgerXLedger),
// over plain gRPC (the committer's services and the routers run without TLS here):
//   - blocks and chain info from the committer's sidecar, committerpb.BlockQueryService
//     (GetBlockchainInfo, GetBlockByNumber): the blocks the sidecar received from the assemblers
//     and stored once committed, with each transaction's committerpb.Status written into
//     TRANSACTIONS_FILTER. The sidecar is also what Fabric-X's own tools read blocks from (loadgen
//     follows its Deliver service); an assembler's blocks carry no commit statuses.
//   - transaction statuses, namespace policies and the config version from the query service
//     (committerpb.QueryService: GetTransactionStatus, GetNamespacePolicies, GetConfigTransaction),
//     which reads the committer's database;
//   - a transaction sent through a router's orderer.AtomicBroadcast/Broadcast.
import * as grpc from '@grpc/grpc-js';
import { common, msp, orderer } from '@hyperledger/fabric-protos';
import type { LedgerXBlock, LedgerXEndpoint, LedgerXLedger, LedgerXTransaction } from '../../domain/ledgerx/ledgerxLedgerPorts.ts';
import { LedgerXRefusedError, LedgerXServiceUnreachableError } from '../../domain/ledgerx/ledgerxLedgerPorts.ts';
import { decodeBlock } from '../consortium/ledgerQueryBlocks.ts';
import { committerStatusName, decode, fx } from './fabricXProtos.ts';
import { namespaceCreationTx, readNamespacePolicy } from './fabricXTx.ts';

const maxMessageBytes = 100 * 1024 * 1024;
const callTimeoutMs = 15_000;
const address = (e: LedgerXEndpoint) => `${e.host}:${e.port}`;
const identity = (b: Buffer | Uint8Array) => Buffer.from(b);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

async function withClient<T>(endpoint: LedgerXEndpoint, use: (client: grpc.Client) => Promise<T>): Promise<T> {
  const client = new grpc.Client(address(endpoint), grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': maxMessageBytes, 'grpc.max_send_message_length': maxMessageBytes });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

type GrpcError = grpc.ServiceError;

function unary(client: grpc.Client, method: string, request: Uint8Array, service: string, endpoint: LedgerXEndpoint): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest<Uint8Array, Buffer>(method, identity, identity, request, new grpc.Metadata(), { deadline: Date.now() + callTimeoutMs }, (err, res) => {
      if (err) return reject(err);
      resolve(res ?? Buffer.alloc(0));
    });
  }).catch((err: GrpcError) => {
    if (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED) {
      throw new LedgerXServiceUnreachableError(`The ${service} at ${address(endpoint)} does not answer (${err.details || err.message}).`, service);
    }
    throw err;
  }) as Promise<Buffer>;
}

const refused = (service: string, method: string, err: GrpcError) =>
  new LedgerXRefusedError(`The ${service} refused ${method}: ${grpc.status[err.code] ?? err.code} (${err.details || err.message}).`, service, String(grpc.status[err.code] ?? err.code));

const headerTypeNames = Object.fromEntries(Object.entries(common.HeaderType).map(([name, code]) => [code, name]));

/** One envelope of a block: its id, type, creator, time and, for a Fabric-X transaction, its namespaces. */
export function fabricXTransaction(envelopeBytes: Uint8Array, statusCode: number | null): LedgerXTransaction {
  let payload: common.Payload;
  try {
    payload = common.Payload.deserializeBinary(common.Envelope.deserializeBinary(envelopeBytes).getPayload_asU8());
  } catch {
    return { txId: '', type: 'MALFORMED', creatorMspId: null, timestamp: null, status: statusCode === null ? null : committerStatusName(statusCode), namespaces: [] };
  }
  const header = payload.getHeader();
  const ch = common.ChannelHeader.deserializeBinary(header?.getChannelHeader_asU8() ?? new Uint8Array());
  const creator = common.SignatureHeader.deserializeBinary(header?.getSignatureHeader_asU8() ?? new Uint8Array()).getCreator_asU8();
  const ts = ch.getTimestamp();
  let namespaces: LedgerXTransaction['namespaces'] = [];
  if (ch.getType() === common.HeaderType.MESSAGE) {
    try {
      const tx = decode<{ namespaces: { ns_id: string; ns_version: number; reads_only: unknown[]; read_writes: { key: Buffer }[]; blind_writes: { key: Buffer }[] }[] }>(fx.Tx, payload.getData_asU8());
      namespaces = tx.namespaces.map((n) => ({
        nsId: n.ns_id, nsVersion: n.ns_version, readsOnly: n.reads_only.length, readWrites: n.read_writes.length, blindWrites: n.blind_writes.length,
        // The keys written, when they are printable (the meta-namespace's are namespace names); at most 20.
        keys: [...n.read_writes, ...n.blind_writes].slice(0, 20).map((w) => w.key.toString('utf8')).filter((k) => /^[\x20-\x7e]{1,200}$/.test(k)),
      }));
    } catch {
      namespaces = [];
    }
  }
  let creatorMspId: string | null = null;
  // msppb.Identity and msp.SerializedIdentity share field 1 (the MSP id); configtxgen's block has no creator.
  if (creator.length) creatorMspId = msp.SerializedIdentity.deserializeBinary(creator).getMspid() || null;
  return {
    txId: ch.getTxId(),
    type: headerTypeNames[ch.getType()] ?? String(ch.getType()),
    creatorMspId,
    timestamp: ts ? ts.toDate().toISOString() : null,
    status: statusCode === null ? null : committerStatusName(statusCode),
    namespaces,
  };
}

export function fabricXBlock(block: common.Block): LedgerXBlock {
  const { transactions, ...fields } = decodeBlock(block, fabricXTransaction);
  return { ...fields, timestamp: transactions.find((t) => t.timestamp)?.timestamp ?? null, transactions };
}

async function broadcast(router: LedgerXEndpoint, envelope: Uint8Array): Promise<void> {
  await withClient(router, (client) => new Promise<void>((resolve, reject) => {
    const stream = client.makeBidiStreamRequest<Uint8Array, Buffer>('/orderer.AtomicBroadcast/Broadcast', identity, identity, new grpc.Metadata(), { deadline: Date.now() + 30_000 });
    let settled = false;
    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      stream.end();
      if (err) reject(err);
      else resolve();
    };
    stream.on('data', (bytes: Buffer) => {
      const r = decodeBroadcastResponse(bytes);
      if (r.status === common.Status.SUCCESS) return finish(null);
      const name = Object.entries(common.Status).find(([, c]) => c === r.status)?.[0] ?? String(r.status);
      finish(new LedgerXRefusedError(`The router ${address(router)} refused the transaction: ${name}${r.info ? ` (${r.info})` : ''}.`, 'router', name, r.status === common.Status.BAD_REQUEST ? 400 : 422));
    });
    stream.on('error', (err: GrpcError) => finish(new LedgerXServiceUnreachableError(`Sending to the router ${address(router)} failed: ${err.details || err.message}`, 'router')));
    stream.on('end', () => finish(new LedgerXServiceUnreachableError(`The router ${address(router)} closed the stream without an answer.`, 'router')));
    stream.write(envelope);
  }));
}

/** orderer.BroadcastResponse { status = 1 (enum), info = 2 (string) }. */
function decodeBroadcastResponse(bytes: Uint8Array): { status: number; info: string } {
  const r = orderer.BroadcastResponse.deserializeBinary(bytes);
  return { status: r.getStatus(), info: r.getInfo() };
}

export function fabricXLedger(): LedgerXLedger {
  return {
    chainInfo: (sidecar) => withClient(sidecar, async (client) => {
      const bytes = await unary(client, '/committerpb.BlockQueryService/GetBlockchainInfo', new Uint8Array(), 'sidecar', sidecar).catch((err) => {
        if (err instanceof LedgerXServiceUnreachableError) throw err;
        throw refused('sidecar', 'GetBlockchainInfo', err);
      });
      const info = common.BlockchainInfo.deserializeBinary(bytes);
      return { height: info.getHeight(), currentBlockHash: hex(info.getCurrentblockhash_asU8()), previousBlockHash: hex(info.getPreviousblockhash_asU8()) };
    }),
    block: (sidecar, number) => withClient(sidecar, async (client) => {
      const bytes = await unary(client, '/committerpb.BlockQueryService/GetBlockByNumber', fx.BlockNumber.encode({ number }).finish(), 'sidecar', sidecar).catch((err) => {
        if (err instanceof LedgerXServiceUnreachableError) throw err;
        if ((err as GrpcError).code === grpc.status.NOT_FOUND) return null;
        throw refused('sidecar', 'GetBlockByNumber', err);
      });
      return bytes ? fabricXBlock(common.Block.deserializeBinary(bytes)) : null;
    }),
    txStatus: (query, txId) => withClient(query, async (client) => {
      const bytes = await unary(client, '/committerpb.QueryService/GetTransactionStatus', fx.TxStatusQuery.encode({ tx_ids: [txId] }).finish(), 'query service', query).catch((err) => {
        if (err instanceof LedgerXServiceUnreachableError) throw err;
        throw refused('query service', 'GetTransactionStatus', err);
      });
      const r = decode<{ statuses: { ref?: { block_num: number; tx_num: number; tx_id: string }; status: number }[] }>(fx.TxStatusResponse, bytes);
      const s = r.statuses.find((x) => x.ref?.tx_id === txId) ?? r.statuses[0];
      if (!s) return null;
      return { txId, status: committerStatusName(s.status), statusCode: s.status, blockNumber: s.ref?.block_num ?? 0, txNumber: s.ref?.tx_num ?? 0 };
    }),
    namespaces: (query) => withClient(query, async (client) => {
      const bytes = await unary(client, '/committerpb.QueryService/GetNamespacePolicies', new Uint8Array(), 'query service', query).catch((err) => {
        if (err instanceof LedgerXServiceUnreachableError) throw err;
        throw refused('query service', 'GetNamespacePolicies', err);
      });
      const r = decode<{ policies: { namespace: string; policy: Buffer; version: number }[] }>(fx.NamespacePolicies, bytes);
      return r.policies.map((p) => ({ name: p.namespace, version: p.version, policy: readNamespacePolicy(p.policy) })).sort((a, b) => a.name.localeCompare(b.name));
    }),
    configVersion: (query) => withClient(query, async (client) => {
      const bytes = await unary(client, '/committerpb.QueryService/GetConfigTransaction', new Uint8Array(), 'query service', query).catch((err) => {
        if (err instanceof LedgerXServiceUnreachableError) throw err;
        throw refused('query service', 'GetConfigTransaction', err);
      });
      return decode<{ version: number }>(fx.ConfigTransaction, bytes).version;
    }),
    async submitNamespace(req) {
      const { txId, envelope } = await namespaceCreationTx(req);
      await broadcast(req.router, envelope);
      return { txId };
    },
  };
}
