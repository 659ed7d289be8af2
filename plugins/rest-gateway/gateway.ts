// The reference plugin of SPEC: a REST gateway to the chaincodes of one channel, on
// @hyperledger/fabric-gateway, as one client identity (x-source consortium-key) through the
// peers the service resolved (x-source consortium-peer). .ci/docker.sh bundles this file with
// esbuild into one JavaScript file and puts it with node into the image
// lnm-plugin-rest-gateway:local; plugins/available/rest-gateway.yaml deploys it.
//
//   POST /api/evaluate   {chaincode_name, function, args}  evaluated on one peer, nothing ordered
//   POST /api/invoke     {chaincode_name, function, args}  endorsed, ordered, waited for its commit
//   GET  /refresh        a fresh connection (the first peer that answers) and discovery again
// Every answer is {status, success, result, result_code, tx_id, block_number, error}:
//   invoke:   status is the validation code (VALID, MVCC_READ_CONFLICT, ...), result_code its number
//   evaluate: status SUCCESS and result_code 200 (the chaincode's response status)
//   failures: status ERROR, success false, result_code the chaincode's status (e.g. 500) or the
//             gRPC status of the peer's refusal, error what was said; HTTP 400 for a bad request,
//             422 when the chaincode refused, 502 when the peers refused, 503 when none answered.
// Configuration from the environment: GATEWAY_PORT, GATEWAY_HOST (127.0.0.1), CHANNEL_NAME,
// MSP_ID, CERT_PATH, KEY_PATH (read once; never logged), PEERS (JSON [{ExternalEndpoint, TLSCertPath}]).
import { connect, GatewayError, signers, type Gateway } from '@hyperledger/fabric-gateway';
import * as grpc from '@grpc/grpc-js';
import { peer as fabricPeer } from '@hyperledger/fabric-protos';
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';

interface Peer {
  ExternalEndpoint: string;
  TLSCertPath: string;
}

interface Answer {
  status: string;
  success: boolean;
  result: string;
  result_code: number;
  tx_id: string | null;
  block_number: number | null;
  error: string | null;
}

function setting(name: string, fallback?: string): string {
  const v = process.env[name] ?? fallback;
  if (v === undefined || v === '') {
    console.error(`rest-gateway: ${name} is not set`);
    process.exit(2);
  }
  return v;
}

const port = Number(setting('GATEWAY_PORT'));
const host = setting('GATEWAY_HOST', '127.0.0.1');
const channelName = setting('CHANNEL_NAME');
const mspId = setting('MSP_ID');
const credentials = readFileSync(setting('CERT_PATH'));
const signer = signers.newPrivateKeySigner(createPrivateKey(readFileSync(setting('KEY_PATH'))));
let peers: Peer[];
try {
  peers = JSON.parse(setting('PEERS')) as Peer[];
  if (!Array.isArray(peers) || !peers.length || !peers.every((p) => typeof p?.ExternalEndpoint === 'string' && typeof p?.TLSCertPath === 'string')) throw new Error('not a list of {ExternalEndpoint, TLSCertPath}');
} catch (err) {
  console.error(`rest-gateway: PEERS: ${(err as Error).message}`);
  process.exit(2);
}

let current: { client: grpc.Client; gateway: Gateway; peer: Peer } | null = null;

function open(peer: Peer) {
  const [address, portText] = [peer.ExternalEndpoint.replace(/:\d+$/, ''), peer.ExternalEndpoint.split(':').pop()];
  const client = new grpc.Client(`${address}:${portText}`, grpc.credentials.createSsl(readFileSync(peer.TLSCertPath)), {
    'grpc.initial_reconnect_backoff_ms': 500,
    'grpc.max_reconnect_backoff_ms': 2000,
  });
  const gateway = connect({
    client,
    identity: { mspId, credentials },
    signer,
    evaluateOptions: () => ({ deadline: Date.now() + 30_000 }),
    endorseOptions: () => ({ deadline: Date.now() + 30_000 }),
    submitOptions: () => ({ deadline: Date.now() + 30_000 }),
    commitStatusOptions: () => ({ deadline: Date.now() + 60_000 }),
  });
  return { client, gateway, peer };
}

function close(): void {
  current?.gateway.close();
  current?.client.close();
  current = null;
}

/** The first peer whose gRPC channel becomes ready within 5 s, in the order given. */
async function reconnect(): Promise<Peer> {
  close();
  const failures: string[] = [];
  for (const peer of peers) {
    const c = open(peer);
    try {
      await new Promise<void>((resolve, reject) => c.client.waitForReady(Date.now() + 5000, (err) => (err ? reject(err) : resolve())));
      current = c;
      return peer;
    } catch (err) {
      c.gateway.close();
      c.client.close();
      failures.push(`${peer.ExternalEndpoint}: ${(err as Error).message}`);
    }
  }
  throw new Unreachable(`no peer answers (${failures.join('; ')})`);
}

class Unreachable extends Error {}
class BadRequest extends Error {}

const contract = async (name: string) => {
  if (!current) await reconnect();
  return current!.gateway.getNetwork(channelName).getContract(name);
};

const CODE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(fabricPeer.TxValidationCode).map(([name, code]) => [code, name]));
const CHAINCODE_RESPONSE = /chaincode response (\d+), ([\s\S]*)$/;
const NO_ENDORSERS_YET = /no combination of peers can be derived|no peer combination can satisfy/;

/** What a failure tells the caller: HTTP status and the answer. */
function failure(err: unknown, txId: string | null): [number, Answer] {
  const answer = (code: number, error: string): Answer => ({ status: 'ERROR', success: false, result: '', result_code: code, tx_id: txId, block_number: null, error });
  if (err instanceof BadRequest) return [400, answer(400, err.message)];
  if (err instanceof Unreachable) return [503, answer(grpc.status.UNAVAILABLE, err.message)];
  if (err instanceof GatewayError) {
    const said = [err.message, ...err.details.map((d) => d.message)];
    for (const text of said) {
      const m = CHAINCODE_RESPONSE.exec(text);
      if (m) return [422, answer(Number(m[1]), m[2])];
    }
    const detail = err.details.map((d) => `${d.address} [${d.mspId}]: ${d.message}`).join('; ');
    const message = detail ? `${err.message} (${detail})` : err.message;
    if (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED) {
      close(); // the next call dials again rather than waiting out this connection's backoff
      return [503, answer(err.code, message)];
    }
    return [502, answer(err.code, message)];
  }
  return [502, answer(-1, err instanceof Error ? `${err.name}: ${err.message}` : String(err))];
}

function requestOf(body: unknown): { chaincode_name: string; function: string; args: string[] } {
  const b = body as Record<string, unknown> | null;
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw new BadRequest('the body must be a JSON object {chaincode_name, function, args}');
  if (typeof b.chaincode_name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}$/.test(b.chaincode_name)) throw new BadRequest('chaincode_name: a chaincode name is required');
  if (typeof b.function !== 'string' || !b.function.length || b.function.length > 256) throw new BadRequest('function: a function name is required');
  const args = b.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new BadRequest('args: must be an array of strings');
  const unknown = Object.keys(b).filter((k) => !['chaincode_name', 'function', 'args'].includes(k));
  if (unknown.length) throw new BadRequest(`${unknown[0]}: unknown field (chaincode_name, function, args)`);
  return { chaincode_name: b.chaincode_name, function: b.function, args: args as string[] };
}

async function evaluate(body: unknown): Promise<[number, Answer]> {
  const r = requestOf(body);
  const proposal = (await contract(r.chaincode_name)).newProposal(r.function, { arguments: r.args });
  const txId = proposal.getTransactionId();
  try {
    const result = Buffer.from(await proposal.evaluate()).toString('utf8');
    return [200, { status: 'SUCCESS', success: true, result, result_code: 200, tx_id: txId, block_number: null, error: null }];
  } catch (err) {
    return failure(err, txId);
  }
}

async function invokeOnce(r: ReturnType<typeof requestOf>): Promise<[number, Answer]> {
  const proposal = (await contract(r.chaincode_name)).newProposal(r.function, { arguments: r.args });
  const txId = proposal.getTransactionId();
  try {
    const transaction = await proposal.endorse();
    const result = Buffer.from(transaction.getResult()).toString('utf8');
    const status = await (await transaction.submit()).getStatus();
    const name = CODE_NAMES[status.code] ?? `CODE_${status.code}`;
    const answer: Answer = { status: name, success: status.successful, result, result_code: status.code, tx_id: txId, block_number: Number(status.blockNumber), error: status.successful ? null : `committed as ${name}: it changed nothing` };
    return [status.successful ? 200 : 409, answer];
  } catch (err) {
    return failure(err, txId);
  }
}

// Right after a chaincode's commit discovery may not know yet which peers run it: asked again
// for up to 20 s before that refusal is the answer.
async function invoke(body: unknown): Promise<[number, Answer]> {
  const r = requestOf(body);
  const until = Date.now() + 20_000;
  for (;;) {
    const [code, answer] = await invokeOnce(r);
    if (code !== 502 || !NO_ENDORSERS_YET.test(answer.error ?? '') || Date.now() > until) return [code, answer];
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function refresh(): Promise<[number, Answer]> {
  try {
    const peer = await reconnect();
    return [200, { status: 'REFRESHED', success: true, result: JSON.stringify({ channel: channelName, mspId, peer: peer.ExternalEndpoint }), result_code: 200, tx_id: null, block_number: null, error: null }];
  } catch (err) {
    return failure(err, null);
  }
}

const MAX_BODY = 1024 * 1024;

async function bodyOf(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new BadRequest('the body is larger than 1 MiB');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
  } catch {
    throw new BadRequest('the body is not JSON');
  }
}

const server = http.createServer((req, res) => {
  const route = `${req.method} ${(req.url ?? '').split('?')[0]}`;
  const handle = async (): Promise<[number, Answer]> => {
    if (route === 'POST /api/evaluate') return evaluate(await bodyOf(req));
    if (route === 'POST /api/invoke') return invoke(await bodyOf(req));
    if (route === 'GET /refresh') return refresh();
    return [404, { status: 'ERROR', success: false, result: '', result_code: 404, tx_id: null, block_number: null, error: `no route ${route}: POST /api/evaluate, POST /api/invoke, GET /refresh` }];
  };
  const started = Date.now();
  handle()
    .catch((err: unknown) => failure(err, null))
    .then(([code, answer]) => {
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      console.log(`${route} ${code} ${answer.status}${answer.tx_id ? ` tx ${answer.tx_id}` : ''} ${Date.now() - started} ms`);
    });
});

server.listen(port, host, () => console.log(`rest-gateway: channel ${channelName} as ${mspId} through ${peers.map((p) => p.ExternalEndpoint).join(', ')}, listening on ${host}:${port}`));
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    close();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  });
}
