// The quick starts check everything before they make anything, the same way (application/
// preflight.ts, issue 35 item 4): on a host without Fabric (LNM_FABRIC_BIN names an empty
// directory, so a Fabric elsewhere is not used) the consortium quick start's check is refused
// naming the Fabric programs, and on one without Fabric-X the ledgerX quick start is refused naming
// them, each a 400 PROGRAM_MISSING with nothing made; several problems are said in one refusal.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminAuth, call, listTotal, startServer, type TestServer } from '../helpers/server.ts';

const t = suite('quick starts refuse up front, nothing made');
let s: TestServer;
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const total = (p: string) => listTotal(s, p);

t.before(async () => {
  const empty = mkdtempSync(path.join(tmpdir(), 'lnm-no-programs-'));
  s = await startServer({ env: { LNM_NODE_ENGINE: 'process', LNM_FABRIC_BIN: empty, LNM_FABRIC_X_BIN: empty } });
});
t.after(async () => {
  await s?.stop();
});

const plan = (name: string, mspId: string) => ({
  name, channelName: 'quickchannel',
  organizations: [{ name: `${name}-Org1`, mspId }],
  nodes: [{ name: `${name}-orderer0`, nodeType: 'CONSORTIUM_ORDERER' }, { name: `${name}-peer0-org1`, nodeType: 'CONSORTIUM_PEER' }],
});

t('the consortium quick start without Fabric: its check is a 400 naming peer and orderer, and nothing is made', async () => {
  const r = await api('POST', '/networks/consortium/quickstart/check', plan('quick', 'Org1MSP'));
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'PROGRAM_MISSING', r.text);
  assert.match(r.json.message, 'peer');
  assert.match(r.json.message, 'orderer');
  assert.match(r.json.message, 'LNM_FABRIC_BIN');
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['programs']);
  assert.equal([await total('/organizations'), await total('/keys'), await total('/nodes'), await total('/networks/consortium')], [0, 0, 0, 0]);
});

t('the consortium quick start check says every problem at once: a bad channel (checked first: its 400), a taken mspId, the programs', async () => {
  const org = await api('POST', '/organizations', { name: 'taken-org', mspId: 'TakenMSP' });
  assert.is(org.status, 201, org.text);
  const keys = await total('/keys');
  const r = await api('POST', '/networks/consortium/quickstart/check', { ...plan('quick2', 'TakenMSP'), channelName: 'Bad Channel' });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'VALIDATION_FAILED', r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['channelName', 'organizations[0].mspId', 'programs']);
  // Without the bad channel the taken mspId is the first problem: its 409.
  const taken = await api('POST', '/networks/consortium/quickstart/check', plan('quick2', 'TakenMSP'));
  assert.is(taken.status, 409, taken.text);
  assert.is(taken.json.code, 'MSP_ID_TAKEN', taken.text);
  assert.equal([await total('/organizations'), await total('/keys'), await total('/nodes')], [1, keys, 0]);
});

t('the ledgerX quick start without Fabric-X is refused the same way: 400 PROGRAM_MISSING, nothing made', async () => {
  const before = [await total('/organizations'), await total('/keys'), await total('/nodes')];
  const r = await api('POST', '/networks/ledgerx/quickstart', { name: 'lx-quick', organizations: [{ name: 'lx-org1', mspId: 'LxOrg1MSP' }] });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'PROGRAM_MISSING', r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['programs']);
  const both = await api('POST', '/networks/ledgerx/quickstart', { name: 'lx-quick', organizations: [{ name: 'lx-org1', mspId: 'TakenMSP' }] });
  assert.is(both.status, 409, both.text);
  assert.equal(both.json.details.map((d: { field: string }) => d.field).sort(), ['organizations[0].mspId', 'programs']);
  assert.equal([await total('/organizations'), await total('/keys'), await total('/nodes')], before);
});

t.run();
