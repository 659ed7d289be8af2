// A stand-in for the besu binary, for tests on machines where no real besu can run (no JVM
// build, no image, no registry). Run as `besu` (test/standins/besuStandinInstall.ts puts a
// wrapper of that name first on PATH). It checks what besu checks at start (besuStandinOptions.ts:
// options and TOML keys against besu 24.12.2's option list, genesis, node key), listens where
// besu listens (P2P, JSON-RPC HTTP and WebSocket, metrics), and proves its peers' node ids in a
// handshake of its own (besuStandinP2p.ts). It does NOT produce blocks or speak devp2p: it
// answers block number 0 and refuses to serve blocks rather than invent hashes.
import http from 'node:http';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { computeAddress } from 'ethers';
import { WebSocketServer } from 'ws';
import { ensureDataPath, loadNodeKey, readGenesis, standinConfig, StandinStartError, type StandinGenesis } from './besuStandinOptions.ts';
import { startP2p, type P2pNode } from './besuStandinP2p.ts';

const VERSION = 'besu-standin/v24.12.2-standin';

function log(level: 'INFO' | 'WARN' | 'ERROR', message: string): void {
  const line = `${new Date().toISOString()} | main | ${level.padEnd(5)} | BesuStandin | ${message}`;
  (level === 'ERROR' ? process.stderr : process.stdout).write(line + '\n');
}

interface RpcContext {
  apis: Set<string>;
  genesis: StandinGenesis;
  networkId: number;
  p2p: P2pNode | null;
  enode: string | null;
  p2pPort: number;
  votes: Map<string, boolean>;
}

class RpcError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

const GROUP: Record<string, string> = { eth: 'ETH', net: 'NET', web3: 'WEB3', admin: 'ADMIN', txpool: 'TXPOOL', qbft: 'QBFT', ibft: 'IBFT', clique: 'CLIQUE', miner: 'MINER' };
const hex = (n: number) => '0x' + n.toString(16);

function call(ctx: RpcContext, method: string, params: unknown[]): unknown {
  const group = GROUP[method.split('_')[0]];
  if (!group) throw new RpcError(-32601, 'Method not found');
  const bft = method.startsWith('qbft_') ? 'qbft' : method.startsWith('ibft_') ? 'ibft2' : null;
  if (bft && ctx.genesis.consensus !== bft) throw new RpcError(-32601, 'Method not found');
  if (!ctx.apis.has(group)) throw new RpcError(-32604, 'Method not enabled');
  const headOnly = (tag: unknown) => tag === 'latest' || tag === 'earliest' || tag === 'pending' || tag === 'finalized' || tag === 'safe' || tag === '0x0' || tag === 0;
  switch (method) {
    case 'web3_clientVersion':
      return VERSION;
    case 'eth_chainId':
      return hex(ctx.genesis.chainId);
    case 'eth_blockNumber':
      return '0x0'; // no block production here, ever
    case 'eth_syncing':
      return false;
    case 'net_version':
      return String(ctx.networkId);
    case 'net_listening':
      return ctx.p2p !== null;
    case 'net_peerCount':
      return hex(ctx.p2p?.peers().length ?? 0);
    case 'admin_nodeInfo':
      return { enode: ctx.enode, id: ctx.p2p?.nodeId ?? null, listenAddr: `127.0.0.1:${ctx.p2pPort}`, name: VERSION, ports: { discovery: ctx.p2pPort, listener: ctx.p2pPort } };
    case 'admin_peers':
      return (ctx.p2p?.peers() ?? []).map((p) => ({ id: '0x' + p.id, enode: `enode://${p.id}@${p.remoteAddress}`, network: { inbound: p.inbound, remoteAddress: p.remoteAddress } }));
    case 'qbft_getValidatorsByBlockNumber':
    case 'ibft_getValidatorsByBlockNumber':
      if (!headOnly(params[0])) throw new RpcError(-32000, 'Block not found'); // only block 0 exists here
      return ctx.genesis.validators.map((a) => a.toLowerCase());
    case 'clique_getSigners':
      if (!headOnly(params[0])) throw new RpcError(-32000, 'Block not found');
      return ctx.genesis.validators.map((a) => a.toLowerCase());
    case 'qbft_proposeValidatorVote':
    case 'ibft_proposeValidatorVote':
      ctx.votes.set(String(params[0]).toLowerCase(), Boolean(params[1]));
      return true;
    case 'qbft_discardValidatorVote':
    case 'ibft_discardValidatorVote':
      return ctx.votes.delete(String(params[0]).toLowerCase());
    case 'qbft_getPendingVotes':
    case 'ibft_getPendingVotes':
      return Object.fromEntries(ctx.votes);
    case 'eth_getBlockByNumber':
    case 'eth_getBlockByHash':
      // A stand-in that built block 0 would only echo our own hash function back to us.
      throw new RpcError(-32000, 'besu stand-in: blocks are not served (no block is built here)');
    default:
      throw new RpcError(-32601, 'Method not found');
  }
}

function answer(ctx: RpcContext, body: unknown): unknown {
  const one = (req: any) => {
    const id = req?.id ?? null;
    if (!req || req.jsonrpc !== '2.0' || typeof req.method !== 'string') return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request' } };
    try {
      return { jsonrpc: '2.0', id, result: call(ctx, req.method, Array.isArray(req.params) ? req.params : []) };
    } catch (err) {
      const e = err instanceof RpcError ? err : new RpcError(-32603, 'Internal error');
      return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message } };
    }
  };
  return Array.isArray(body) ? body.map(one) : one(body);
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

async function main(): Promise<void> {
  const cfg = standinConfig(process.argv.slice(2));
  const dataPath = cfg.str('data-path', path.resolve('.'));
  ensureDataPath(dataPath);
  const genesisFile = cfg.str('genesis-file', '');
  if (!genesisFile) throw new StandinStartError('The stand-in runs private networks only: --genesis-file is required');
  const genesis = readGenesis(genesisFile);
  const networkId = cfg.int('network-id', genesis.chainId);
  const key = loadNodeKey(cfg.str('node-private-key-file', path.join(dataPath, 'key')), (l) => log('INFO', l));
  const host = cfg.str('p2p-host', '127.0.0.1');
  const p2pPort = cfg.int('p2p-port', 30303);
  const bootnodes = cfg.list('bootnodes', []);
  const genesisDigest = createHash('sha256').update(JSON.stringify(genesis.json)).digest('hex');
  const servers: http.Server[] = [];
  let p2p: P2pNode | null = null;
  if (cfg.bool('p2p-enabled', true)) {
    // As besu: p2p-host is the address advertised in the enode; the listener binds p2p-interface (default 0.0.0.0).
    p2p = await startP2p({ key, host: cfg.str('p2p-interface', '0.0.0.0'), port: p2pPort, networkId, genesisDigest, bootnodes, log: (l) => log('INFO', l) });
  }
  const enode = p2p ? `enode://${p2p.nodeId}@${host}:${p2pPort}` : null;
  log('INFO', `Starting ${VERSION} (a stand-in: no block production, no devp2p)`);
  log('INFO', `Genesis: chainId ${genesis.chainId}, consensus ${genesis.consensus}, network id ${networkId}, ${genesis.validators.length} BFT validator(s) in extraData`);
  log('INFO', `Node address ${computeAddress(key.publicKey)}`);
  if (enode) log('INFO', `Enode URL ${enode}`);
  log('INFO', `Bootnodes: ${bootnodes.length}`);

  const ctx: RpcContext = { apis: new Set(), genesis, networkId, p2p, enode, p2pPort, votes: new Map() };
  if (cfg.bool('rpc-http-enabled', false)) {
    ctx.apis = new Set(cfg.list('rpc-http-api', ['ETH', 'NET', 'WEB3']).map((a) => a.toUpperCase()));
    const allow = cfg.list('host-allowlist', ['localhost', '127.0.0.1']);
    const server = http.createServer((req, res) => {
      const hostname = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
      if (!allow.includes('*') && !allow.includes(hostname)) {
        res.writeHead(403).end('Host not authorized.');
        return;
      }
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(ctx, parsed)));
      });
    });
    await listen(server, cfg.int('rpc-http-port', 8545), cfg.str('rpc-http-host', '127.0.0.1'));
    servers.push(server);
    log('INFO', `JSON-RPC service started and listening on ${cfg.str('rpc-http-host', '127.0.0.1')}:${cfg.int('rpc-http-port', 8545)}`);
  }
  if (cfg.bool('rpc-ws-enabled', false)) {
    const wsCtx = { ...ctx, apis: new Set(cfg.list('rpc-ws-api', ['ETH', 'NET', 'WEB3']).map((a) => a.toUpperCase())) };
    const server = http.createServer((_req, res) => res.writeHead(400).end());
    const wss = new WebSocketServer({ server });
    wss.on('connection', (socket) => {
      socket.on('message', (data) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(data));
        } catch {
          socket.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
          return;
        }
        socket.send(JSON.stringify(answer(wsCtx, parsed)));
      });
    });
    await listen(server, cfg.int('rpc-ws-port', 8546), cfg.str('rpc-ws-host', '127.0.0.1'));
    servers.push(server);
  }
  if (cfg.bool('metrics-enabled', false)) {
    const server = http.createServer((req, res) => {
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(`# besu stand-in: peer count only\nethereum_peer_count ${p2p?.peers().length ?? 0}\n`);
    });
    await listen(server, cfg.int('metrics-port', 9545), cfg.str('metrics-host', '127.0.0.1'));
    servers.push(server);
  }
  log('INFO', 'Ethereum main loop is running (stand-in: waiting, producing no blocks)');

  const shutdown = async () => {
    log('INFO', 'Stopping');
    for (const s of servers) s.closeAllConnections?.();
    await Promise.all([p2p?.close(), ...servers.map((s) => new Promise((r) => s.close(r)))]);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

main().catch((err) => {
  if (err instanceof StandinStartError) {
    process.stderr.write(`${err.message}\n`);
    if (err.exitCode === 2) process.stderr.write('To display full help:\nbesu [COMMAND] --help\n');
    process.exit(err.exitCode);
  }
  log('ERROR', `Startup failed: ${(err as Error).message}`);
  process.exit(1);
});
