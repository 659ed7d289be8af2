// The RPC gateway's way to a node (adapters/evm/jsonRpc.ts createEvmRpcPort().forward) against a
// local HTTP server: an answer is passed on as it is; one longer than maxBytes is a 502
// RPC_RESPONSE_TOO_LARGE read no further; a node that never answers a 504 RPC_TIMEOUT; a closed
// port a 503; no message quotes the URL's credentials.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEvmRpcPort } from '../../../adapters/evm/jsonRpc.ts';
import { AppError } from '../../../domain/shared/errors.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';

let server: http.Server;
let base = '';
let bigWritten = 0;

test.before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/hang') return; // never answers
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const write = () => {
        while (bigWritten < 64 * 1024 * 1024) {
          bigWritten += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      res.on('error', () => undefined);
      return write();
    }
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body).id, result: '0x2a', auth: req.headers.authorization ?? null }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(() => {
  server.closeAllConnections();
  server.close();
});

const failure = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a failure');
};

test('an answer is passed on as it is; credentials in the URL go as Basic auth, never in a message', async () => {
  const port = createEvmRpcPort();
  const r = await port.forward(`http://user:secret@${base.slice(7)}/`, '{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber"}', { timeoutMs: 2000, maxBytes: 1000 });
  assert.is(r.status, 200);
  const body = JSON.parse(r.text);
  assert.equal([body.id, body.result, body.auth], [7, '0x2a', 'Basic ' + Buffer.from('user:secret').toString('base64')]);
  const e = await failure(port.forward(`http://user:secret@${base.slice(7)}/hang`, '{}', { timeoutMs: 300, maxBytes: 1000 }));
  assert.not.ok(e.message.includes('secret'), e.message);
});

test('an answer above maxBytes is a 502 RPC_RESPONSE_TOO_LARGE, and the rest is not read', async () => {
  const e = await failure(createEvmRpcPort().forward(`${base}/big`, '{}', { timeoutMs: 10_000, maxBytes: 1024 * 1024 }));
  assert.instance(e, AppError);
  assert.equal([e.status, e.code], [502, 'RPC_RESPONSE_TOO_LARGE']);
  assert.match(e.message, /more than 1048576 bytes/);
  assert.ok(bigWritten < 64 * 1024 * 1024, `stopped reading: the server wrote ${bigWritten} bytes`);
});

test('a node that never answers is a 504 RPC_TIMEOUT; a closed port a 503', async () => {
  let e = await failure(createEvmRpcPort().forward(`${base}/hang`, '{}', { timeoutMs: 300, maxBytes: 1000 }));
  assert.equal([e.status, e.code], [504, 'RPC_TIMEOUT']);
  e = await failure(createEvmRpcPort().forward(`http://127.0.0.1:${await freePort()}/`, '{}', { timeoutMs: 2000, maxBytes: 1000 }));
  assert.equal([e.status, e.code], [503, 'UNAVAILABLE']);
});

test.run();
