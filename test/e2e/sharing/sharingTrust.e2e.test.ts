// Node sharing's trust boundary, without Fabric (two pro instances with no nodes, and a fake
// inviter of the test's own): the instance-to-instance listener answers every hostile body,
// authenticated or not, with a 4xx in the one error shape and records nothing; accepting an
// invitation needs system:configure and the confirmed fingerprint of the key that signed it; an
// inviter answering outside the sharing schema is a 502 and nothing of it is recorded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import https from 'node:https';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { adminAuth, basic, call, startServer, type TestServer } from '../../helpers/server.ts';
import { fingerprintOf, loadOrCreateInstanceTls, postPinned } from '../../../adapters/sharing/sharingTls.ts';

const t = suite('node sharing: listener bodies, the accept permission and fingerprint, peer answers');
let a: TestServer;
let b: TestServer;
const env = { LNM_SHARING_PORT: '0', KEY_ENCRYPTION_KEY: 'sharing-trust-e2e-key-encryption-key' };
const api = (s: () => TestServer, headers: Record<string, string> = adminAuth()) => (method: string, p: string, body?: unknown) => call(s().api, method, p, { headers, body });
const apiA = api(() => a);
const apiB = api(() => b);
const operatorB = api(() => b, { authorization: basic('sharing-operator', 'operator-password-for-tests') });
let listener: { url: string; cert: string };

t.before(async () => {
  [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
  const u = await apiB('POST', '/users', { username: 'sharing-operator', password: 'operator-password-for-tests', role: 'OPERATOR' });
  assert.is(u.status, 201, u.text);
  const inv = await apiA('POST', '/nodesharing/invitations', {});
  assert.is(inv.status, 201, inv.text);
  const claims = decodeJwt(inv.json.invitation_jwt);
  listener = { url: String(claims.url), cert: String(claims.tls_certificate) };
});
t.after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const errorShape = (status: number, body: any, what: string) => {
  assert.ok(body && typeof body === 'object', `${what}: a JSON error body`);
  assert.is(body.status, status, what);
  assert.type(body.code, 'string', what);
  assert.type(body.message, 'string', what);
  assert.type(body.requestId, 'string', what);
};

/** A raw POST to the listener (no token), with whatever body and content type. */
function rawPost(p: string, data: string | Buffer, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const target = new URL(p, listener.url);
  const pinned = fingerprintOf(listener.cert);
  return new Promise((resolve, reject) => {
    const req = https.request(target, { method: 'POST', ca: [listener.cert], checkServerIdentity: (_h, c) => (c.fingerprint256 === pinned ? undefined : new Error('pin')), headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(data) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

t('the listener answers null, arrays, strings, numbers, extra or mistyped fields and non-JSON with a 4xx in the one error shape, and records nothing', async () => {
  const jwk = await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey);
  const instance = { instanceId: 'x', url: 'https://127.0.0.1:1', tlsCertificate: listener.cert, publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } };
  const bodies: Array<[string, unknown]> = [
    ['/sharing/v1/accept', null], ['/sharing/v1/accept', []], ['/sharing/v1/accept', 'text'], ['/sharing/v1/accept', 7], ['/sharing/v1/accept', {}],
    ['/sharing/v1/accept', { invitation_jwt: 'a.b.c', instance, nodes: [], extra: true }],
    ['/sharing/v1/accept', { invitation_jwt: 'a.b.c', instance: { ...instance, publicJwk: jwk }, nodes: [] }], // a private key (d) is an extra field
    ['/sharing/v1/accept', { invitation_jwt: 'a.b.c', instance, nodes: [{ id: 1 }] }],
    ['/sharing/v1/accept', { invitation_jwt: 'a.b.c', instance, nodes: 'all' }],
    ['/sharing/v1/accept', { invitation_jwt: 'a.b.c', instance: { ...instance, url: 'http://127.0.0.1:1' }, nodes: [] }],
    ['/sharing/v1/sync', null], ['/sharing/v1/sync', [1]], ['/sharing/v1/sync', { nodes: [], secret: 1 }],
    ['/sharing/v1/proposals', null], ['/sharing/v1/proposals', { proposalId: 'p' }],
    ['/sharing/v1/signatures', 'x'], ['/sharing/v1/chaincodes', null], ['/sharing/v1/chaincodes/committed', { chaincodeId: 2 ** 64 }],
  ];
  for (const [p, body] of bodies) {
    const r = await postPinned(listener.url, listener.cert, p, body, null);
    assert.ok(r.status >= 400 && r.status < 500, `${p} ${JSON.stringify(body)?.slice(0, 80)}: ${r.status} ${JSON.stringify(r.body)}`);
    errorShape(r.status, r.body, `${p} ${JSON.stringify(body)?.slice(0, 80)}`);
  }
  let r = await postPinned(listener.url, listener.cert, '/sharing/v1/accept', null, null);
  assert.is(r.status, 400);
  assert.is(r.body.code, 'VALIDATION_FAILED');
  r = await postPinned(listener.url, listener.cert, '/sharing/v1/sync', { nodes: [], secret: 1 }, null);
  assert.is(r.status, 400);
  assert.ok(r.body.details.length > 0, JSON.stringify(r.body));
  for (const [data, type, status] of [['{"nodes":', 'application/json', 400], ['nodes=1', 'text/plain', 415], ['', 'application/json', 400], ['{"nodes":[]}', 'application/x+json', 415]] as const) {
    const raw = await rawPost('/sharing/v1/sync', data, type);
    assert.is(raw.status, status, `${type} ${data}: ${JSON.stringify(raw.body)}`);
    errorShape(status, raw.body, `${type} ${data}`);
  }
  const nowhere = await postPinned(listener.url, listener.cert, '/sharing/v1/nothing', {}, null);
  assert.is(nowhere.status, 404);
  assert.is((await apiA('GET', '/nodesharing/peers')).json.total, 0, 'nothing recorded');
  assert.is((await apiA('GET', '/health')).status, 200);
});

t('accepting is a trust decision: an OPERATOR cannot; the key fingerprint must be confirmed (preview shows it), else 409 and nothing is sent', async () => {
  const inv = await apiA('POST', '/nodesharing/invitations', { bidirectional: true });
  assert.is(inv.status, 201, inv.text);
  assert.match(inv.json.key_fingerprint, /^[A-Za-z0-9_-]{43}$/);
  assert.is((await operatorB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt, fingerprint: inv.json.key_fingerprint })).status, 403);
  assert.is((await operatorB('POST', '/nodesharing/invitations/preview', { invitation_jwt: inv.json.invitation_jwt })).status, 403);
  assert.is((await operatorB('POST', '/nodesharing/invitations', {})).status, 201, 'an OPERATOR still invites');

  const preview = await apiB('POST', '/nodesharing/invitations/preview', { invitation_jwt: inv.json.invitation_jwt });
  assert.is(preview.status, 200, preview.text);
  assert.is(preview.json.key_fingerprint, inv.json.key_fingerprint, 'the fingerprint the inviter sees is the one the acceptor confirms');
  assert.is(preview.json.invitation_id, inv.json.invitation_id);
  assert.is(preview.json.bidirectional, true);
  assert.is(preview.json.tls_fingerprint, decodeJwt(inv.json.invitation_jwt).tls_fingerprint);

  let r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'FINGERPRINT_CONFIRMATION_REQUIRED');
  assert.is(r.json.context.key_fingerprint, inv.json.key_fingerprint);
  r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt, fingerprint: 'A'.repeat(43) });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'FINGERPRINT_MISMATCH');
  assert.is((await apiA('GET', '/nodesharing/peers')).json.total, 0, 'the inviter was not contacted');
  assert.is((await apiB('GET', '/nodesharing/peers')).json.total, 0);

  r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt, fingerprint: inv.json.key_fingerprint });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.role, 'acceptor');
  assert.is((await apiA('GET', '/nodesharing/peers')).json.total, 1);
  // Later syncs read A's answer through the same schema.
  const sync = await apiB('POST', '/nodesharing/sync', { peer_node_id: r.json.id });
  assert.is(sync.status, 200, sync.text);
});

t('an inviter whose answer is outside the sharing schema (extra fields, a private key, bad types) is a 502 and nothing of it is recorded; a clean answer is recorded field for field', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-fake-inviter-'));
  const tls = await loadOrCreateInstanceTls(dir, 'fake-inviter', ['127.0.0.1'], new Date());
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  let answer: unknown = null;
  const server = https.createServer({ key: tls.keyPem, cert: tls.certificatePem }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  const instance = { instanceId: 'fake-inviter', url, tlsCertificate: tls.certificatePem, publicJwk: { kty: 'EC', crv: 'P-256', x: publicJwk.x, y: publicJwk.y } };
  const node = { id: 9, name: 'their-peer', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', role: 'peer', status: 'running', mspId: 'TheirMSP', host: 'peer.example', ports: { port: 7051 }, endpoint: 'peer.example:7051', tlsCertificate: null, identityCertificate: null, validatorAddress: null };
  const invitation = async () => new SignJWT({ url, tls_certificate: tls.certificatePem, tls_fingerprint: tls.fingerprint, bidirectional: false })
    .setProtectedHeader({ alg: 'ES256', jwk: instance.publicJwk }).setIssuer('fake-inviter').setAudience('lnm-nodesharing-invitation').setJti(`inv-${Math.random().toString(36).slice(2)}`).setIssuedAt().setExpirationTime('1h').sign(privateKey);
  const fingerprint = await calculateJwkThumbprint(instance.publicJwk as never, 'sha256');
  try {
    const before = (await apiB('GET', '/nodesharing/peers')).json.total;
    for (const bad of [
      null, [], 'ok',
      { instance, nodes: [{ ...node, privateKey: '-----BEGIN PRIVATE KEY-----' }] },
      { instance: { ...instance, publicJwk: await exportJWK(privateKey) }, nodes: [] },
      { instance, nodes: [{ ...node, ports: { port: 'x' } }] },
      { instance, nodes: [{ ...node, name: 'a\u0000b' }] },
      { instance, nodes: [], extra: { anything: true } },
      { instance, nodes: Array.from({ length: 10_001 }, () => node) },
    ]) {
      answer = bad;
      const r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: await invitation(), fingerprint });
      assert.is(r.status, 502, `${JSON.stringify(bad)?.slice(0, 120)}: ${r.text.slice(0, 300)}`);
      assert.is(r.json.code, 'PEER_INVALID_ANSWER');
      // The 502 says what was wrong with the peer's answer (the console shows it), not a generic text.
      assert.match(r.json.message, /^The peer instance's answer to POST \/sharing\/v1\/accept is not valid/, r.text);
      assert.is((await apiB('GET', '/nodesharing/peers')).json.total, before, 'nothing recorded');
    }
    answer = { instance, nodes: [node], organizations: [], networks: [] };
    const r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: await invitation(), fingerprint });
    assert.is(r.status, 201, r.text);
    assert.equal(r.json.nodes, [node]);

    // Now a known peer of B: its signed requests with hostile bodies are 4xx too, never a 500.
    const bInvitation = decodeJwt((await apiB('POST', '/nodesharing/invitations', {})).json.invitation_jwt);
    const signed = async (p: string, body: unknown) => {
      const token = await new SignJWT({ bh: createHash('sha256').update(JSON.stringify(body)).digest('base64url'), sub: String(bInvitation.iss) })
        .setProtectedHeader({ alg: 'ES256' }).setIssuer('fake-inviter').setAudience('lnm-nodesharing-peer').setIssuedAt().setExpirationTime('1m').sign(privateKey);
      return postPinned(String(bInvitation.url), String(bInvitation.tls_certificate), p, body, token);
    };
    const good = await signed('/sharing/v1/sync', { nodes: [], organizations: [], networks: [] });
    assert.is(good.status, 200, JSON.stringify(good.body));
    for (const [p, body] of [
      ['/sharing/v1/sync', null], ['/sharing/v1/sync', { nodes: [{ ...node, extra: 1 }] }],
      ['/sharing/v1/proposals', { proposalId: 'p1', channelName: 'mychannel', update: Buffer.from('not a config update').toString('base64'), missingOrganizations: ['TheirMSP'] }],
      ['/sharing/v1/signatures', { proposalId: 'nope', signatures: [{ mspId: 'TheirMSP', signatureHeader: 'AA==', signature: 'AA==' }] }],
      ['/sharing/v1/chaincodes', { chaincodeId: 1 }],
      ['/sharing/v1/chaincodes/committed', { chaincodeId: 12345 }],
    ] as const) {
      const res = await signed(p, body);
      assert.ok(res.status >= 400 && res.status < 500, `${p}: ${res.status} ${JSON.stringify(res.body)}`);
      errorShape(res.status, res.body, p);
      if (p === '/sharing/v1/proposals') assert.equal(res.body.details?.[0]?.field, 'update', JSON.stringify(res.body));
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
