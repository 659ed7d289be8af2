// Deleting an owner offers to delete its keys (issue 35 item 5): `?deleteKeys=true` on
// DELETE /organizations/{id} and DELETE /networks/evm/{id} deletes the owner's keys with it, each
// deletion audited; without it the keys stay, and a caller without KEY_DELETE is refused (403)
// before anything is deleted.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, basic, call, startServer, type TestServer } from '../helpers/server.ts';

const t = suite('deleting an owner with its keys');
let s: TestServer;
const api = (method: string, p: string, body?: unknown, headers: Record<string, string> = adminAuth()) => call(s.api, method, p, { headers, body });
const keyIds = async (q: string) => ((await api('GET', `/keys?limit=500${q}`)).json.items as Array<{ id: number }>).map((k) => k.id).sort((a, b) => a - b);

t.before(async () => {
  s = await startServer({ env: { LNM_NODE_ENGINE: 'process' } });
});
t.after(async () => {
  await s?.stop();
});

t('DELETE /organizations/{id}?deleteKeys=true deletes its three keys, each deletion audited; without it they stay', async () => {
  const kept = await api('POST', '/organizations', { name: 'keep-org', mspId: 'KeepMSP' });
  assert.is(kept.status, 201, kept.text);
  const keptKeys = await keyIds(`&organizationId=${kept.json.id}`);
  assert.is(keptKeys.length, 3);
  assert.is((await api('DELETE', `/organizations/${kept.json.id}`)).status, 204);
  assert.equal(await keyIds(`&organizationId=${kept.json.id}`), keptKeys, 'a plain delete keeps the keys');

  const org = await api('POST', '/organizations', { name: 'gone-org', mspId: 'GoneMSP' });
  assert.is(org.status, 201, org.text);
  const ids = await keyIds(`&organizationId=${org.json.id}`);
  assert.is(ids.length, 3);
  const del = await api('DELETE', `/organizations/${org.json.id}?deleteKeys=true`);
  assert.is(del.status, 204, del.text);
  assert.is((await api('GET', `/organizations/${org.json.id}`)).status, 404);
  for (const id of ids) assert.is((await api('GET', `/keys/${id}`)).status, 404, `key ${id} deleted`);
  const audit = await api('GET', '/audit-logs?resource_type=key&action=DELETE&limit=100');
  const audited = (audit.json.items as Array<{ resource_id: string }>).map((e) => Number(e.resource_id));
  for (const id of ids) assert.ok(audited.includes(id), `the deletion of key ${id} is audited`);
});

t('DELETE /networks/evm/{id}?deleteKeys=true deletes its validator key', async () => {
  const n = await api('POST', '/networks/evm', { name: 'keys-gone', client: 'anvil', genesis: { chain_id: 48001, consensus: 'QBFT' } });
  assert.is(n.status, 201, n.text);
  const keyId = n.json.validators[0].key_id as number;
  assert.is((await api('DELETE', `/networks/evm/${n.json.id}?deleteKeys=true`)).status, 204);
  assert.is((await api('GET', `/keys/${keyId}`)).status, 404);
});

t('deleteKeys=true without KEY_DELETE is a 403 and nothing is deleted', async () => {
  const u = await api('POST', '/users', { username: 'org-deleter', password: 'a-long-passphrase-1', role: 'OPERATOR' });
  assert.is(u.status, 201, u.text);
  const k = await api('POST', '/api-keys', { name: 'org-only', scopes: ['ORGANIZATION_DELETE', 'ORGANIZATION_READ'] }, { authorization: basic('org-deleter', 'a-long-passphrase-1') });
  assert.is(k.status, 201, k.text);
  const org = await api('POST', '/organizations', { name: 'still-org', mspId: 'StillMSP' });
  const ids = await keyIds(`&organizationId=${org.json.id}`);
  const r = await api('DELETE', `/organizations/${org.json.id}?deleteKeys=true`, undefined, { 'x-api-key': k.json.key });
  assert.is(r.status, 403, r.text);
  assert.match(r.json.message, 'KEY_DELETE');
  assert.is((await api('GET', `/organizations/${org.json.id}`)).status, 200, 'the organization is not deleted either');
  assert.equal(await keyIds(`&organizationId=${org.json.id}`), ids);
});

t.run();
