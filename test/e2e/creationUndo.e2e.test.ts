// A create that fails at a later step names the step, lists what it made, and one call removes
// all of it (issue 35 item 4): the console's consortium quick start records itself on a create
// (POST /creations; its calls carry creationId), here with an orderer program that exits at
// once (written by the test: no Fabric needed), so the create fails after its organization and
// its orderer were made. POST /creations/{id}/undo then removes the node, the organization and
// every key of both (counted), each removal audited; hostile ids and a second undo change nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';

const t = suite('a failed create is undone in one call');
let s: TestServer;
let bin: string;
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const count = async (p: string) => (await api('GET', p)).json.total as number;

t.before(async () => {
  bin = mkdtempSync(path.join(tmpdir(), 'lnm-undo-orderer-'));
  writeFileSync(path.join(bin, 'orderer'), '#!/bin/sh\necho "broken orderer on purpose" >&2\nexit 3\n', { mode: 0o755 });
  s = await startServer({ env: { LNM_FABRIC_BIN: bin, LNM_NODE_ENGINE: 'process', KEY_ENCRYPTION_KEY: 'creation-undo-e2e-key-encryption-key' } });
});
t.after(async () => {
  await s?.stop();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

t('a consortium quick start failing at its orderer: the step, what it made, and one undo removes organization, node and keys', async () => {
  const keysBefore = await count('/keys?limit=1');
  const orgsBefore = await count('/organizations?limit=1');
  const c = await api('POST', '/creations', { kind: 'consortium-quickstart', name: 'undonet' });
  assert.is(c.status, 201, c.text);
  assert.is(c.json.status, 'IN_PROGRESS');
  const creationId = c.json.id as number;
  assert.is((await api('POST', '/creations', { kind: 'consortium-quickstart', name: 'undonet' })).status, 409, 'the name is claimed while it runs');

  const org = await api('POST', '/organizations', { name: 'undonet-Org1', mspId: 'UndoOrg1MSP', creationId });
  assert.is(org.status, 201, org.text);
  const node = await api('POST', '/nodes', { name: 'undonet-orderer0', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_ORDERER', organizationId: org.json.id, config: {}, creationId });
  assert.is(node.status, 201, node.text);
  assert.is.not(node.json.status, 'running', 'the orderer program exits at once');
  const keysMade = await count(`/keys?limit=1&organizationId=${org.json.id}`);
  assert.is(keysMade, 5, 'the organization\'s signing CA, TLS CA and admin, the orderer\'s identity and TLS keys');

  const ended = await api('POST', `/creations/${creationId}/end`, { outcome: 'FAILED', step: 'Orderer undonet-orderer0 started', message: `undonet-orderer0 is ${node.json.status}` });
  assert.is(ended.status, 200, ended.text);
  const failed = (await api('GET', `/creations/${creationId}`)).json;
  assert.is(failed.status, 'FAILED');
  assert.is(failed.step, 'Orderer undonet-orderer0 started');
  assert.equal(failed.made, [{ resource: 'organization', id: org.json.id }, { resource: 'node', id: node.json.id }]);
  assert.equal(failed.remaining, failed.made, 'nothing removed yet');
  assert.is((await api('GET', `/organizations/${org.json.id}`)).status, 200, 'a failed create keeps what it made until the undo');

  const undo = await api('POST', `/creations/${creationId}/undo`);
  assert.is(undo.status, 200, undo.text);
  assert.is(undo.json.status, 'UNDONE');
  assert.equal(undo.json.left, []);
  assert.equal(undo.json.remaining, []);
  assert.is((await api('GET', `/nodes/${node.json.id}`)).status, 404);
  assert.is((await api('GET', `/organizations/${org.json.id}`)).status, 404);
  assert.is(await count(`/keys?limit=1&organizationId=${org.json.id}`), 0, 'no key of the organization or its node remains');
  assert.is(await count('/keys?limit=1'), keysBefore, 'as many keys as before the create');
  assert.is(await count('/organizations?limit=1'), orgsBefore);

  const second = await api('POST', `/creations/${creationId}/undo`);
  assert.is(second.status, 409, second.text);
  assert.is(second.json.code, 'CREATION_NOT_FAILED');
  const audit = (await api('GET', `/audit-logs?resource_type=creation&limit=100`)).json.items as Array<{ resource_id: string; details: { event?: string } }>;
  const events = audit.filter((e) => e.resource_id === String(creationId)).map((e) => e.details.event);
  for (const e of ['creation.started', 'creation.made', 'creation.failed', 'creation.undone']) assert.ok(events.includes(e), `${e} audited (${events.join(', ')})`);
  const keyDeletes = (await api('GET', '/audit-logs?resource_type=key&action=DELETE&limit=100')).json.items as unknown[];
  assert.ok(keyDeletes.length >= keysMade, 'each key deletion audited');
});

t('hostile or stale ids: a 4xx, nothing made or removed', async () => {
  const orgsBefore = await count('/organizations?limit=1');
  const keysBefore = await count('/keys?limit=1');
  const r = await api('POST', '/organizations', { name: 'ghost', mspId: 'GhostMSP', creationId: 999999 });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.details[0].field, 'creationId');
  assert.is(await count('/organizations?limit=1'), orgsBefore);
  assert.is(await count('/keys?limit=1'), keysBefore);
  assert.is((await api('POST', '/creations/999999/undo')).status, 404);
  assert.is((await api('POST', '/creations', { kind: 'evm-network', name: 'x' })).status, 400, 'only a client-driven kind is started by a client');
  const c = await api('POST', '/creations', { kind: 'consortium-quickstart', name: 'stillrunning' });
  const open = await api('POST', `/creations/${c.json.id}/undo`);
  assert.is(open.status, 409, 'a create in progress is not undone');
  assert.is((await api('POST', `/creations/${c.json.id}/end`, { outcome: 'FAILED' })).status, 400, 'a failure names its step');
  assert.is((await api('POST', `/creations/${c.json.id}/end`, { outcome: 'FAILED', step: 'checks', message: 'given up' })).status, 200);
  const late = await api('POST', '/organizations', { name: 'late', mspId: 'LateMSP', creationId: c.json.id });
  assert.is(late.status, 409, 'an ended create takes no more steps');
  assert.is(late.json.code, 'CREATION_NOT_OPEN');
  assert.is(await count('/organizations?limit=1'), orgsBefore);
  const undo = await api('POST', `/creations/${c.json.id}/undo`);
  assert.is(undo.status, 200, undo.text);
  assert.is(undo.json.status, 'UNDONE', 'nothing made, nothing to remove');
});

t.run();
