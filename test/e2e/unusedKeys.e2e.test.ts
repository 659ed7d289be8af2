// Keys outlive their owners (issue 35 item 5): each key says what uses it (in_use, used_by: an
// organization, a node, an evm network), GET /keys?unused=true lists those nothing uses, and
// POST /keys/delete deletes them together, each deletion audited, refusing the whole call (409
// naming the user, nothing deleted) while one is in use. DELETE /nodes/{id}?deleteKeys=true
// deletes a node's own keys with it. The consortium nodes run an orderer and a peer program written
// by the test that exit at once: their keys are made as for real ones, no Fabric needed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminAuth, basic, call, startServer, type TestServer } from '../helpers/server.ts';

const t = suite('unused keys: marked, listed, deleted together');
let s: TestServer;
let bin: string;
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const unusedIds = async () => ((await api('GET', '/keys?unused=true&limit=500')).json.items as Array<{ id: number }>).map((k) => k.id);
const key = async (id: number) => (await api('GET', `/keys/${id}`)).json as { in_use: boolean; used_by: Array<{ type: string; id: number; name: string; as: string }> };

t.before(async () => {
  bin = mkdtempSync(path.join(tmpdir(), 'lnm-unused-keys-'));
  for (const p of ['orderer', 'peer']) writeFileSync(path.join(bin, p), '#!/bin/sh\necho "not a real fabric program" >&2\nexit 3\n', { mode: 0o755 });
  s = await startServer({ env: { LNM_FABRIC_BIN: bin, LNM_NODE_ENGINE: 'process', KEY_ENCRYPTION_KEY: 'unused-keys-e2e-key-encryption-key' } });
});
t.after(async () => {
  await s?.stop();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

t('an organization, its two nodes and an evm network deleted: their keys marked unused, listed, deleted together; a key in use refused', async () => {
  const org = await api('POST', '/organizations', { name: 'owners', mspId: 'OwnersMSP' });
  assert.is(org.status, 201, org.text);
  const orgKeys = [org.json.signKeyId, org.json.tlsKeyId, org.json.adminKeyId] as number[];
  assert.equal((await key(org.json.signKeyId)).used_by, [{ type: 'organization', id: org.json.id, name: 'OwnersMSP', as: 'signing CA' }]);
  const made: Record<string, number> = {};
  for (const [name, nodeType] of [['owners-orderer', 'CONSORTIUM_ORDERER'], ['owners-peer', 'CONSORTIUM_PEER']] as const) {
    const n = await api('POST', '/nodes', { name, platform: 'CONSORTIUM', nodeType, organizationId: org.json.id, config: {} });
    assert.is(n.status, 201, n.text);
    made[name] = n.json.id;
  }
  const nodeKeys = async (nodeId: number) => ((await api('GET', `/keys?limit=500&organizationId=${org.json.id}`)).json.items as Array<{ id: number; used_by: Array<{ type: string; id: number; as: string }> }>)
    .filter((k) => k.used_by.some((u) => u.type === 'node' && u.id === nodeId));
  const ordererKeys = (await nodeKeys(made['owners-orderer'])).map((k) => k.id);
  const peerKeys = await nodeKeys(made['owners-peer']);
  assert.is(ordererKeys.length, 2, 'the orderer\'s identity and TLS keys are used by it');
  assert.equal(peerKeys.map((k) => k.used_by[0].as).sort(), ['TLS', 'identity']);
  const net = await api('POST', '/networks/evm', { name: 'owners-chain', client: 'anvil', genesis: { chain_id: 48101, consensus: 'QBFT' } });
  assert.is(net.status, 201, net.text);
  const validatorKey = net.json.validators[0].key_id as number;
  assert.equal((await key(validatorKey)).used_by, [{ type: 'network', id: net.json.id, name: 'owners-chain', as: 'validator' }]);
  const all = [...orgKeys, ...ordererKeys, ...peerKeys.map((k) => k.id), validatorKey];
  const unusedBefore = await unusedIds();
  for (const id of all) assert.not.ok(unusedBefore.includes(id), `key ${id} is in use`);

  // In use: refused whole, nothing deleted.
  const refused = await api('POST', '/keys/delete', { ids: [ordererKeys[0], org.json.signKeyId] });
  assert.is(refused.status, 409, refused.text);
  assert.is(refused.json.code, 'KEY_IN_USE');
  assert.match(refused.json.message, 'organization OwnersMSP (signing CA)');
  assert.match(refused.json.message, 'node owners-orderer');
  for (const id of all) assert.is((await api('GET', `/keys/${id}`)).status, 200, `key ${id} kept`);

  // The peer deleted with its keys; the rest deleted without theirs.
  const peerGone = await api('DELETE', `/nodes/${made['owners-peer']}?deleteKeys=true`);
  assert.is(peerGone.status, 204, peerGone.text);
  for (const k of peerKeys) assert.is((await api('GET', `/keys/${k.id}`)).status, 404, `the peer's key ${k.id} went with it`);
  assert.is((await api('DELETE', `/nodes/${made['owners-orderer']}`)).status, 204);
  assert.is((await api('DELETE', `/networks/evm/${net.json.id}`)).status, 204);
  const orgGone = await api('DELETE', `/organizations/${org.json.id}`);
  assert.is(orgGone.status, 204, orgGone.text);

  const left = [...orgKeys, ...ordererKeys, validatorKey];
  for (const id of left) assert.equal(await key(id), { ...(await key(id)), in_use: false, used_by: [] }, `key ${id} is marked unused`);
  const unused = await unusedIds();
  for (const id of left) assert.ok(unused.includes(id), `key ${id} is listed by ?unused=true`);
  const inUse = ((await api('GET', '/keys?unused=false&limit=500')).json.items as Array<{ id: number }>).map((k) => k.id);
  for (const id of left) assert.not.ok(inUse.includes(id));

  const missing = await api('POST', '/keys/delete', { ids: [...left, 999999] });
  assert.is(missing.status, 404, missing.text);
  for (const id of left) assert.is((await api('GET', `/keys/${id}`)).status, 200, 'nothing deleted on a refusal');
  assert.is((await api('POST', '/keys/delete', { ids: [] })).status, 400);

  const del = await api('POST', '/keys/delete', { ids: left });
  assert.is(del.status, 200, del.text);
  assert.equal([...del.json.deleted].sort((a: number, b: number) => a - b), [...left].sort((a, b) => a - b));
  for (const id of left) assert.is((await api('GET', `/keys/${id}`)).status, 404);
  const audited = ((await api('GET', '/audit-logs?resource_type=key&action=DELETE&limit=200')).json.items as Array<{ resource_id: string }>).map((e) => Number(e.resource_id));
  for (const id of [...left, ...peerKeys.map((k) => k.id)]) assert.ok(audited.includes(id), `the deletion of key ${id} is audited`);
});

t('DELETE /nodes/{id}?deleteKeys=true without KEY_DELETE is a 403: the node and its keys stay', async () => {
  const org = await api('POST', '/organizations', { name: 'guarded', mspId: 'GuardedMSP' });
  const n = await api('POST', '/nodes', { name: 'guarded-peer', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: org.json.id, config: {} });
  assert.is(n.status, 201, n.text);
  const u = await api('POST', '/users', { username: 'node-deleter', password: 'a-long-passphrase-1', role: 'OPERATOR' });
  assert.is(u.status, 201, u.text);
  const k = await call(s.api, 'POST', '/api-keys', { headers: { authorization: basic('node-deleter', 'a-long-passphrase-1') }, body: { name: 'nodes-only', scopes: ['NODE_DELETE', 'NODE_READ'] } });
  assert.is(k.status, 201, k.text);
  const nodeKeys = ((await api('GET', `/keys?limit=500&organizationId=${org.json.id}`)).json.items as Array<{ id: number; used_by: Array<{ type: string }> }>).filter((x) => x.used_by.some((u) => u.type === 'node'));
  assert.is(nodeKeys.length, 2);
  const r = await call(s.api, 'DELETE', `/nodes/${n.json.id}?deleteKeys=true`, { headers: { 'x-api-key': k.json.key } });
  assert.is(r.status, 403, r.text);
  assert.match(r.json.message, 'KEY_DELETE');
  assert.is((await api('GET', `/nodes/${n.json.id}`)).status, 200, 'the node is not deleted either');
  for (const x of nodeKeys) assert.is((await api('GET', `/keys/${x.id}`)).status, 200);
});

t.run();
