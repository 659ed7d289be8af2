// A ledgerX quick start that fails at a later step names the step, lists what it made and one
// call removes all of it (issue 35 item 4): the service is pointed (LNM_FABRIC_X_BIN) at
// programs written by the test that pass the check (they are there) but exit at once when run
// (no Fabric-X needed), so the quick start makes its organizations, orderer groups, committer and
// network and then fails at the first join. Its create (creation_id) lists them; POST
// /creations/{id}/undo removes nodes, network, organizations and every key (counted back to where
// they started), each removal audited; a second undo is refused and the service ends its create
// itself (a client's POST /creations/{id}/end is refused).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../consortium/consortiumApi.ts';
import { LEDGERX_COMMITTER_ROLES, LEDGERX_ORDERER_ROLES } from '../../../domain/ledgerx/ledgerxNode.ts';

const t = suite('a failed ledgerX quick start is undone in one call');
let s: TestServer;
let bin: string;
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const count = async (p: string) => (await api('GET', p)).json.total as number;
const counts = async () => ({ organizations: await count('/organizations?limit=1'), nodes: await count('/nodes?limit=1'), keys: await count('/keys?limit=1'), networks: await count('/networks/ledgerx?limit=1') });

t.before(async () => {
  bin = mkdtempSync(path.join(tmpdir(), 'lnm-undo-fabric-x-'));
  for (const p of ['arma', 'committer']) writeFileSync(path.join(bin, p), `#!/bin/sh\necho "broken ${p} on purpose" >&2\nexit 3\n`, { mode: 0o755 });
  s = await startServer({ env: { LNM_FABRIC_X_BIN: bin, LNM_NODE_ENGINE: 'process', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '30', KEY_ENCRYPTION_KEY: 'ledgerx-undo-e2e-key-encryption-key' } });
});
t.after(async () => {
  await s?.stop();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

t('failing at its first join: the step, what it made, and one undo removes organizations, nodes, network and keys', async () => {
  const before = await counts();
  const r = await api('POST', '/networks/ledgerx/quickstart', { name: 'undox', organizations: [{ name: 'UndoX1', mspId: 'UndoX1MSP' }, { name: 'UndoX2', mspId: 'UndoX2MSP' }] });
  assert.is(r.status, 202, r.text);
  const creationId = r.json.creation_id as number;
  assert.ok(creationId > 0, `the quick start names its create: ${r.text}`);
  const q = await until('the quick start ends', async () => {
    const x = (await api('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json;
    return x.status === 'IN_PROGRESS' ? null : x;
  }, 120_000, 200);
  assert.is(q.status, 'FAILED', JSON.stringify(q));
  const failedStep = q.steps.find((x: any) => x.status === 'FAILED');
  assert.is(`${failedStep.kind} ${failedStep.name}`, 'join-orderer-group undox-orderer1', JSON.stringify(q.steps));
  const [org1, org2, group1, group2, committer, network] = q.steps.slice(0, 6).map((x: any) => x.resource_id as number);

  const c = (await api('GET', `/creations/${creationId}`)).json;
  assert.is(c.kind, 'ledgerx-quickstart');
  assert.is(c.status, 'FAILED');
  assert.is(c.step, 'join-orderer-group undox-orderer1');
  assert.ok(c.message, 'it says why');
  assert.equal(c.made, [
    { resource: 'organization', id: org1 }, { resource: 'organization', id: org2 },
    { resource: 'node', id: group1 }, { resource: 'node', id: group2 }, { resource: 'node', id: committer },
    { resource: 'network', id: network },
  ]);
  assert.equal(c.remaining, c.made, 'a failed quick start keeps what it made until the undo');
  const madeNow = await counts();
  assert.is(madeNow.organizations, before.organizations + 2);
  assert.is(madeNow.networks, before.networks + 1);
  assert.is(madeNow.nodes, before.nodes + 3 + 2 * LEDGERX_ORDERER_ROLES.length + LEDGERX_COMMITTER_ROLES.length, 'two orderer groups and a committer with their role nodes');
  assert.ok(madeNow.keys > before.keys, 'keys were made');

  const end = await api('POST', `/creations/${creationId}/end`, { outcome: 'COMPLETED', resourceId: network });
  assert.is(end.status, 409, `the service ended it: a client cannot end it again (${end.text})`);

  const undo = await api('POST', `/creations/${creationId}/undo`);
  assert.is(undo.status, 200, undo.text);
  assert.is(undo.json.status, 'UNDONE', undo.text);
  assert.equal(undo.json.left, []);
  assert.equal(undo.json.remaining, []);
  for (const id of [group1, group2, committer]) assert.is((await api('GET', `/nodes/${id}`)).status, 404);
  for (const id of [org1, org2]) assert.is((await api('GET', `/organizations/${id}`)).status, 404);
  assert.is((await api('GET', `/networks/ledgerx/${network}`)).status, 404);
  assert.equal(await counts(), before, 'organizations, nodes, keys and networks as before the quick start');

  const second = await api('POST', `/creations/${creationId}/undo`);
  assert.is(second.status, 409, second.text);
  assert.is(second.json.code, 'CREATION_NOT_FAILED');
  const audit = (await api('GET', '/audit-logs?resource_type=creation&limit=100')).json.items as Array<{ resource_id: string; details: { event?: string } }>;
  const events = audit.filter((e) => e.resource_id === String(creationId)).map((e) => e.details.event);
  for (const e of ['creation.started', 'creation.made', 'creation.failed', 'creation.undone']) assert.ok(events.includes(e), `${e} audited (${events.join(', ')})`);
  const keyDeletes = (await api('GET', '/audit-logs?resource_type=key&action=DELETE&limit=200')).json.items as unknown[];
  assert.ok(keyDeletes.length >= madeNow.keys - before.keys, `each key deletion audited (${keyDeletes.length} of ${madeNow.keys - before.keys})`);

});

t.run();
