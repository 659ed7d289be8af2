// Node sharing between two pro instances on loopback, each with a real Fabric peer: an invitation
// (ES256 JWT signed through the key provider) issued by A and accepted by B over TLS with A's
// certificate pinned; node metadata on both sides, synced again after a change; expired,
// tampered and reused invitations refused; the instance-to-instance API refusing unknown
// signers; the community edition answering 403; and no private key ever reaching the peer.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash, createPrivateKey } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { SignJWT, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';
import { postPinned } from '../../../adapters/sharing/sharingTls.ts';

const t = requires(suite('node sharing between two instances (pro, real Fabric peers)'), 'fabric', fabricMissing);
let a: TestServer;
let b: TestServer;
let community: TestServer;
const apiA = apiOf(() => a);
const apiB = apiOf(() => b);
const apiC = apiOf(() => community);
const made: Array<{ api: typeof apiA; id: number }> = [];
let peerA: any;
let peerB: any;

t.before(async () => {
  const env = consortiumEnv({ LNM_SHARING_PORT: '0' });
  [a, b, community] = await Promise.all([startServer({ env }), startServer({ env }), startServer({ env: { EDITION: 'community', LNM_SHARING_PORT: '0' } })]);
});
t.after(async () => {
  for (const n of made) await n.api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  for (const [api, s] of [[apiA, a], [apiB, b]] as const) {
    if (!s) continue;
    await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  }
  await new Promise((r) => setTimeout(r, 1000));
  await Promise.all([a?.stop(), b?.stop(), community?.stop()]);
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');
let invitation: string;
let fingerprint: string;

t('community edition answers 403 EDITION_REQUIRED on every sharing endpoint', async () => {
  for (const [m, p, body] of [['POST', '/nodesharing/invitations', {}], ['POST', '/nodesharing/accept', { invitation_jwt: 'x' }], ['POST', '/nodesharing/sync', { peer_node_id: 1 }], ['GET', '/nodesharing/peers', undefined]] as const) {
    const r = await apiC(m, p, body);
    assert.is(r.status, 403, `${m} ${p}: ${r.text}`);
    assert.is(r.json.code, 'EDITION_REQUIRED');
  }
});

t('an invitation is an ES256 JWT with an expiry, the inviter\'s public key, its sharing address and the certificate to pin', async () => {
  const orgA = await organization(apiA, 'ShareOrgA', 'ShareOrgAMSP');
  peerA = await node(apiA, 'share-peer-a', 'CONSORTIUM_PEER', orgA.id);
  made.push({ api: apiA, id: peerA.id });
  const orgB = await organization(apiB, 'ShareOrgB', 'ShareOrgBMSP');
  peerB = await node(apiB, 'share-peer-b', 'CONSORTIUM_PEER', orgB.id);
  made.push({ api: apiB, id: peerB.id });

  const r = await apiA('POST', '/nodesharing/invitations', { bidirectional: true });
  assert.is(r.status, 201, r.text);
  invitation = r.json.invitation_jwt;
  fingerprint = r.json.key_fingerprint;
  const header = decodeProtectedHeader(invitation);
  const claims = decodeJwt(invitation);
  assert.is(header.alg, 'ES256');
  assert.equal(Object.keys(header.jwk!).sort(), ['crv', 'kty', 'x', 'y'], 'a public key only');
  assert.is(claims.bidirectional, true);
  assert.match(String(claims.url), /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.match(String(claims.tls_certificate), /^-----BEGIN CERTIFICATE-----/);
  assert.ok(Number(claims.exp) - Number(claims.iat) === 86_400);
  assert.is(new Date(r.json.expires_at).getTime(), Number(claims.exp) * 1000);
  // The signing key is a key of the instance, in its key provider (listed, never exported).
  const keys = (await apiA('GET', '/keys?limit=100')).json.items;
  assert.ok(keys.some((k: any) => k.name === 'node-sharing-identity'), 'the sharing key is a key under /keys');
});

t('tampered and expired invitations are refused before anything is sent', async () => {
  const [h, p, s] = invitation.split('.');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, bidirectional: false })).toString('base64url')}.${s}`;
  let r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: tampered });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'INVITATION_INVALID');
  r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: 'not.a.jwt' });
  assert.is(r.status, 400, r.text);

  const short = await apiA('POST', '/nodesharing/invitations', { expiresInSeconds: 1 });
  assert.is(short.status, 201, short.text);
  await new Promise((res) => setTimeout(res, 2100));
  r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: short.json.invitation_jwt });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'INVITATION_EXPIRED');
  assert.equal((await apiB('GET', '/nodesharing/peers')).json.items, []);
  assert.equal((await apiA('GET', '/nodesharing/peers')).json.items, []);
});

t('accepted over pinned TLS: both instances list each other with the other\'s nodes', async () => {
  const r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: invitation, fingerprint });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.role, 'acceptor');
  assert.is(r.json.bidirectional, true);
  assert.is(r.json.tls_fingerprint, decodeJwt(invitation).tls_fingerprint);
  const seenByB = r.json.nodes.find((n: any) => n.name === 'share-peer-a');
  assert.ok(seenByB, JSON.stringify(r.json.nodes));
  assert.is(seenByB.mspId, 'ShareOrgAMSP');
  assert.is(seenByB.role, 'peer');
  assert.ok(seenByB.ports.port > 0);
  assert.match(seenByB.tlsCertificate, /^-----BEGIN CERTIFICATE-----/);
  assert.is(seenByB.tlsCertificate.trim(), (await apiA('GET', `/keys/${peerA.tls_key_id}`)).json.certificate.pem.trim());

  const peersA = (await apiA('GET', '/nodesharing/peers')).json.items;
  assert.is(peersA.length, 1);
  assert.is(peersA[0].role, 'inviter');
  assert.ok(peersA[0].nodes.some((n: any) => n.name === 'share-peer-b' && n.mspId === 'ShareOrgBMSP'), JSON.stringify(peersA[0].nodes));
  assert.ok(peersA[0].last_sync_at);
  const peersB = (await apiB('GET', '/nodesharing/peers')).json.items;
  assert.is(peersB.length, 1);
  assert.is(peersB[0].instance_id, decodeJwt(invitation).iss);
});

t('a reused invitation is refused, by the acceptor and by the inviter itself', async () => {
  let r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: invitation, fingerprint });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'INVITATION_USED');
  // Another instance (a key of its own, signing its request properly) presents the same invitation to A.
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const claims = decodeJwt(invitation);
  const body = { invitation_jwt: invitation, instance: { instanceId: 'intruder', url: 'https://127.0.0.1:1', tlsCertificate: String(claims.tls_certificate), publicJwk: await exportJWK(publicKey) }, nodes: [] };
  const token = await new SignJWT({ bh: sha256(JSON.stringify(body)), sub: claims.iss }).setProtectedHeader({ alg: 'ES256' }).setIssuer('intruder').setAudience('lnm-nodesharing-peer').setIssuedAt().setExpirationTime('1m').sign(privateKey);
  r = { status: 0, json: null, text: '' } as any;
  const res = await postPinned(String(claims.url), String(claims.tls_certificate), '/sharing/v1/accept', body, token);
  assert.is(res.status, 409, JSON.stringify(res.body));
  assert.is(res.body.code, 'INVITATION_USED');
  // And the instance-to-instance API refuses a signer it has no relationship with.
  const syncBody = { nodes: [] };
  const syncToken = await new SignJWT({ bh: sha256(JSON.stringify(syncBody)), sub: claims.iss }).setProtectedHeader({ alg: 'ES256' }).setIssuer('intruder').setAudience('lnm-nodesharing-peer').setIssuedAt().setExpirationTime('1m').sign(privateKey);
  const sync = await postPinned(String(claims.url), String(claims.tls_certificate), '/sharing/v1/sync', syncBody, syncToken);
  assert.is(sync.status, 401, JSON.stringify(sync.body));
  // A known peer's id with a signature by another key is refused too.
  const forged = await new SignJWT({ bh: sha256(JSON.stringify(syncBody)), sub: claims.iss }).setProtectedHeader({ alg: 'ES256' }).setIssuer((await apiA('GET', '/nodesharing/peers')).json.items[0].instance_id).setAudience('lnm-nodesharing-peer').setIssuedAt().setExpirationTime('1m').sign(privateKey);
  const forgedSync = await postPinned(String(claims.url), String(claims.tls_certificate), '/sharing/v1/sync', syncBody, forged);
  assert.is(forgedSync.status, 401, JSON.stringify(forgedSync.body));
  // A call to A over TLS pinned to another certificate never reaches it.
  const other = decodeJwt((await apiB('POST', '/nodesharing/invitations', {})).json.invitation_jwt).tls_certificate as string;
  const wrongPin = await postPinned(String(claims.url), other, '/sharing/v1/sync', syncBody, syncToken).then(() => 'answered', (e: Error) => e.message);
  assert.not.equal(wrongPin, 'answered');
});

t('sync pulls the peer\'s current metadata: a stopped node shows as stopped on the other instance', async () => {
  let r = await apiA('POST', `/nodes/${peerA.id}/stop`);
  assert.ok(r.status < 300, r.text);
  await until('peer A stopped', async () => (await apiA('GET', `/nodes/${peerA.id}`)).json.status === 'stopped', 30_000);
  const peerId = (await apiB('GET', '/nodesharing/peers')).json.items[0].id;
  const before = (await apiB('GET', '/nodesharing/peers')).json.items[0].last_sync_at;
  r = await apiB('POST', '/nodesharing/sync', { peer_node_id: peerId });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.nodes.find((n: any) => n.name === 'share-peer-a').status, 'stopped');
  assert.ok(r.json.last_sync_at > before);
  // And the other way: A syncs with B, over B's listener and B's pinned certificate.
  const onA = (await apiA('GET', '/nodesharing/peers')).json.items[0];
  r = await apiA('POST', '/nodesharing/sync', { peer_node_id: onA.id });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.nodes.find((n: any) => n.name === 'share-peer-b').status, 'running');
  assert.ok(r.json.last_sync_at > onA.last_sync_at);
  r = await apiB('POST', '/nodesharing/sync', { peer_node_id: 999 });
  assert.is(r.status, 404, r.text);
});

function privateKeyFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out.push(...privateKeyFiles(p));
    else if (statSync(p).size < 20_000 && readFileSync(p, 'utf8').includes('PRIVATE KEY')) out.push(p);
  }
  return out;
}

t('no private key travels: nothing the peer received or recorded holds one', async () => {
  // A's peer keys (TLS and identity), as files under A's data directory, and A's sharing listener key.
  const files = [...privateKeyFiles(path.join(a.dataDir, 'nodes', `node-${peerA.id}`)), ...privateKeyFiles(path.join(a.dataDir, 'sharing'))];
  assert.ok(files.length >= 3, files.join(', '));
  // The private scalar of each, in the encodings it could travel in (base64url as in a JWK, base64, hex).
  const secrets = files.flatMap((f) => {
    const d = String(createPrivateKey(readFileSync(f, 'utf8')).export({ format: 'jwk' }).d);
    const raw = Buffer.from(d, 'base64url');
    return [d, raw.toString('base64').replace(/=+$/, ''), raw.toString('hex')];
  });
  // Everything B recorded of the relationship (events of node-sharing, the projection), and what B serves.
  const db = new pg.Client({ connectionString: b.databaseUrl! });
  await db.connect();
  try {
    const events = (await db.query(`SELECT data::text AS d FROM events WHERE stream_id = 'node-sharing'`)).rows.map((r) => r.d).join('\n');
    const rows = (await db.query('SELECT row_to_json(p)::text AS r FROM sharing_peers p')).rows.map((r) => r.r).join('\n');
    const served = (await apiB('GET', '/nodesharing/peers')).text;
    assert.ok(events.includes('share-peer-a') && rows.includes('share-peer-a') && served.includes('share-peer-a'), 'A\'s node metadata is there');
    for (const [what, text] of [['events', events], ['projection', rows], ['response', served]] as const) {
      assert.not.match(text, /PRIVATE KEY/, `${what} holds no PEM private key`);
      for (const s of secrets) assert.not.ok(text.toLowerCase().includes(s.slice(0, 24).toLowerCase()), `${what} holds none of A's private keys`);
      assert.not.match(text, /"d"\s*:/, `${what} holds no private JWK`);
    }
    // Every PEM in it is a certificate.
    const pems = [...served.matchAll(/-----BEGIN ([A-Z ]+)-----/g)].map((m) => m[1]);
    assert.ok(pems.length > 0 && pems.every((k) => k === 'CERTIFICATE'), pems.join(', '));
  } finally {
    await db.end();
  }
});

t('a revoked peer is refused: A revokes B, and B\'s signed sync is answered 403', async () => {
  const onA = (await apiA('GET', '/nodesharing/peers')).json.items[0];
  let r = await apiA('DELETE', `/nodesharing/peers/${onA.id}`);
  assert.is(r.status, 204, r.text);
  assert.is((await apiA('GET', '/nodesharing/peers')).json.items[0].status, 'revoked');
  const onB = (await apiB('GET', '/nodesharing/peers')).json.items[0];
  r = await apiB('POST', '/nodesharing/sync', { peer_node_id: onB.id });
  assert.is(r.status, 403, r.text);
  assert.match(r.text, 'revoked');
  assert.is((await apiA('DELETE', '/nodesharing/peers/999')).status, 404);
});

t.run();
