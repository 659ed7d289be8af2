// Calls to a peer instance are bounded: an answer larger than MAX_ANSWER_BYTES, or one that
// trickles on past the deadline, ends in an error instead of holding the caller or its memory.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_ANSWER_BYTES, loadOrCreateInstanceTls, postPinned } from '../../../adapters/sharing/sharingTls.ts';

async function peer(handler: (res: import('node:http').ServerResponse) => void) {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-peer-tls-'));
  const tls = await loadOrCreateInstanceTls(dir, 'peer', ['127.0.0.1'], new Date());
  const server = https.createServer({ key: tls.keyPem, cert: tls.certificatePem }, (req, res) => {
    req.resume();
    req.on('end', () => handler(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    cert: tls.certificatePem,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('an answer larger than the bound is an error, not a buffer of the whole of it', async () => {
  const p = await peer((res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    let sent = 0;
    const more = () => {
      while (sent <= MAX_ANSWER_BYTES + chunk.length) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  try {
    await postPinned(p.url, p.cert, '/sharing/v1/sync', { nodes: [] }, null, 30_000);
    assert.unreachable('read it all');
  } catch (err) {
    assert.match((err as Error).message, /larger than/);
  } finally {
    await p.close();
  }
});

test('an answer that trickles on past the deadline is an error at the deadline', async () => {
  const p = await peer((res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const t = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(t));
  });
  try {
    await postPinned(p.url, p.cert, '/sharing/v1/sync', { nodes: [] }, null, 500);
    assert.unreachable('waited for ever');
  } catch (err) {
    assert.match((err as Error).message, /no complete answer .* within 500 ms/);
  } finally {
    await p.close();
  }
});

test.run();
