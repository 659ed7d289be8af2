// The JSON-RPC client against a real anvil, an unreachable port and a server that never answers.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { anvilBinaryPath } from '../../../adapters/evm/anvilLaunch.ts';
import { EvmRpcError, evmJsonRpc, keptJsonRpcCall, probeEvmNode } from '../../../adapters/evm/jsonRpc.ts';
import { UnavailableError } from '../../../domain/shared/errors.ts';
import { onGlobalTeardown } from '../../helpers/globalTeardown.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import { rejects } from '../../helpers/rejects.ts';


const rpcSuite = suite('evm JSON-RPC client');
const ctx: { child?: ChildProcess; port: number; silent?: Server; sockets: Socket[]; silentPort: number } = { port: 0, sockets: [], silentPort: 0 };

rpcSuite.before(async () => {
  ctx.port = await freePort();
  ctx.child = spawn(anvilBinaryPath(), ['--port', String(ctx.port), '--accounts', '0', '--chain-id', '777', '--no-mining'], { stdio: 'ignore' });
  const child = ctx.child;
  onGlobalTeardown(() => void child.kill('SIGTERM'));
  const rpc = evmJsonRpc(`http://127.0.0.1:${ctx.port}`, { timeoutMs: 500 });
  const deadline = Date.now() + 20000;
  for (;;) {
    try {
      await rpc.blockNumber();
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // A TCP server that accepts connections and never answers: what a hung node looks like.
  ctx.silent = createServer((s) => ctx.sockets.push(s));
  await new Promise<void>((r) => ctx.silent!.listen(0, '127.0.0.1', () => r()));
  ctx.silentPort = (ctx.silent.address() as { port: number }).port;
});

rpcSuite.after(async () => {
  ctx.sockets.forEach((s) => s.destroy());
  await new Promise((r) => ctx.silent?.close(r));
  if (ctx.child && ctx.child.exitCode === null) {
    const gone = new Promise((r) => ctx.child!.once('exit', r));
    ctx.child.kill('SIGTERM');
    await gone;
  }
});

rpcSuite('eth_blockNumber, eth_chainId, eth_syncing and block 0 come back typed', async () => {
  const rpc = evmJsonRpc(`http://127.0.0.1:${ctx.port}`);
  assert.is(await rpc.blockNumber(), 0);
  assert.is(await rpc.chainId(), 777);
  assert.is(await rpc.syncing(), false);
  const b = await rpc.blockByNumber(0);
  assert.is(b?.number, 0);
  assert.match(b?.hash ?? '', /^0x[0-9a-f]{64}$/);
  assert.is(await rpc.blockByNumber(99), null);
});

rpcSuite('a method the node does not offer (qbft_* on anvil) is an EvmRpcError with the RPC code and a hint', async () => {
  const rpc = evmJsonRpc(`http://127.0.0.1:${ctx.port}`);
  const err = await rejects(rpc.validatorsByBlockNumber('qbft'), EvmRpcError, /qbft_getValidatorsByBlockNumber.*-32601.*rpc-http-api/);
  assert.is(err.rpcCode, -32601);
  assert.is(err.status, 502);
  await rejects(rpc.proposeValidatorVote('0xc98adee2e27b436582259500797fa6633f88367f', true), EvmRpcError, /qbft_proposeValidatorVote/);
  await rejects(rpc.peerCount(), EvmRpcError, /net_peerCount/);
});

rpcSuite('a closed port is an UnavailableError naming the node, without credentials from the URL', async () => {
  const port = await freePort();
  const rpc = evmJsonRpc(`http://user:secret@127.0.0.1:${port}/`);
  const err = await rejects(rpc.blockNumber(), UnavailableError, new RegExp(`EVM node http://127.0.0.1:${port} is unreachable \\(eth_blockNumber\\): ECONNREFUSED`));
  assert.is(err.status, 503);
  assert.not.match(err.message, /secret/);
});

rpcSuite('a node that never answers is an UnavailableError after the timeout', async () => {
  const rpc = evmJsonRpc(`http://127.0.0.1:${ctx.silentPort}`, { timeoutMs: 300 });
  await rejects(rpc.syncing(), UnavailableError, /no answer within 300 ms/);
});

rpcSuite('the health probe: block height and peer count in one batch, again and again over one kept-alive connection; down nodes as the client reports them', async () => {
  const url = `http://127.0.0.1:${ctx.port}`;
  const first = await probeEvmNode(url, 2000);
  assert.equal(first, { blockHeight: await evmJsonRpc(url).blockNumber(), peerCount: 0 });
  for (let i = 0; i < 20; i++) assert.is((await probeEvmNode(url, 2000)).blockHeight, first.blockHeight);
  const closed = await freePort();
  await rejects(probeEvmNode(`http://user:secret@127.0.0.1:${closed}`, 500), UnavailableError, new RegExp(`^EVM node http://127\\.0\\.0\\.1:${closed} is unreachable \\(eth_blockNumber\\): ECONNREFUSED`));
  const silent = await rejects(probeEvmNode(`http://127.0.0.1:${ctx.silentPort}`, 300), UnavailableError, /no answer within 300 ms/);
  assert.not.match(silent.message, /secret/);
});

rpcSuite('one call over a kept connection (contract queries): the result, the node\'s error with its data, down nodes without credentials', async () => {
  const url = `http://127.0.0.1:${ctx.port}`;
  for (let i = 0; i < 5; i++) assert.is(await keptJsonRpcCall<string>(url, 'eth_chainId', [], 2000), '0x309');
  // A call that reverts with Error("no"): its revert data comes back on the error.
  // Init code: mstore the selector, offset 32, length 2 and "no", then revert(0, 100).
  const reverting = '0x7f08c379a00000000000000000000000000000000000000000000000000000000060005260206004526002602452616e6f60f01b60445260646000fd';
  const err = await rejects(keptJsonRpcCall(url, 'eth_call', [{ data: reverting }, 'latest'], 2000), EvmRpcError, /eth_call.*revert/i);
  assert.match(String(err.rpcData), /^0x08c379a0/);
  assert.match(err.rpcMessage, /revert/i);
  await rejects(keptJsonRpcCall(url, 'no_such_method', [], 2000), EvmRpcError, /-32601/);
  const closed = await freePort();
  const down = await rejects(keptJsonRpcCall(`http://user:secret@127.0.0.1:${closed}`, 'eth_call', [], 500), UnavailableError, new RegExp(`^EVM node http://127\\.0\\.0\\.1:${closed} is unreachable \\(eth_call\\): ECONNREFUSED`));
  assert.not.match(down.message, /secret/);
  await rejects(keptJsonRpcCall(`http://127.0.0.1:${ctx.silentPort}`, 'eth_call', [], 300), UnavailableError, /no answer within 300 ms/);
});

rpcSuite.run();
