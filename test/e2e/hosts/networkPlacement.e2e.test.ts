// A network create's `placement` (issue 39, "Placing nodes from POST /networks"): POST
// /networks/evm, the generic POST /networks and the consortium quick start's check take
// {hostId} or {hostLabels}, checked by the node routes' placement rule before anything is made.
// Hostile placements, without any host registered (runs everywhere, no Docker or cluster):
// - an unknown host: 400 UNKNOWN_HOST naming placement.hostId;
// - both fields: 400 naming placement.hostLabels; labels no host carries: 409 NO_HOST_FITS; a
//   field a placement has not: 400;
// each with nothing recorded (no network, key, node or organization).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, listTotal, startServer, type TestServer } from '../../helpers/server.ts';

const t = suite('network placement: hostile placements are refused, nothing made');
let s: TestServer;
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const total = (p: string) => listTotal(s, p);
const made = async () => [await total('/networks/evm'), await total('/networks/consortium'), await total('/keys'), await total('/nodes'), await total('/organizations')];

t.before(async () => {
  s = await startServer({ env: { KEY_ENCRYPTION_KEY: 'network-placement-e2e-key-encryption-key-01', LNM_NODE_ENGINE: 'process' } });
});
t.after(async () => {
  await s?.stop();
});

const evm = (name: string, placement: unknown, extra: Record<string, unknown> = {}) => ({ name, client: 'anvil', genesis: { consensus: 'QBFT', block_time: 1 }, placement, ...extra });

for (const path of ['/networks/evm', '/networks']) {
  t(`${path}: an unknown host is a 400 UNKNOWN_HOST naming placement.hostId, nothing made`, async () => {
    const before = await made();
    const r = await api('POST', path, evm('placed-unknown', { hostId: 987654 }, path === '/networks' ? { type: 'evm' } : {}));
    assert.is(r.status, 400, r.text);
    assert.is(r.json.code, 'UNKNOWN_HOST', r.text);
    assert.ok(r.json.details.some((d: { field: string }) => d.field === 'placement.hostId'), r.text);
    assert.equal(await made(), before);
  });

  t(`${path}: hostId and hostLabels together is a 400, labels no host carries a 409 NO_HOST_FITS, nothing made`, async () => {
    const before = await made();
    const both = await api('POST', path, evm('placed-both', { hostId: 1, hostLabels: { zone: 'b' } }));
    assert.is(both.status, 400, both.text);
    assert.ok(both.json.details.some((d: { field: string }) => d.field === 'placement.hostLabels'), both.text);
    const none = await api('POST', path, evm('placed-nowhere', { hostLabels: { zone: 'nowhere' } }));
    assert.is(none.status, 409, none.text);
    assert.is(none.json.code, 'NO_HOST_FITS', none.text);
    assert.match(none.json.message, 'zone=nowhere');
    const extra = await api('POST', path, evm('placed-extra', { hostId: 1, namespace: 'x' }));
    assert.is(extra.status, 400, extra.text);
    assert.match(extra.text, 'placement');
    assert.equal(await made(), before);
  });
}

t('the consortium quick start check: an unknown host is a 400 UNKNOWN_HOST, both fields a 400, no fitting host a 409, nothing made', async () => {
  const before = await made();
  const plan = (placement: unknown) => ({
    name: 'placed-quick', channelName: 'placedchannel', organizations: [{ name: 'Placed-Org1', mspId: 'PlacedMSP' }],
    nodes: [{ name: 'placed-orderer0', nodeType: 'CONSORTIUM_ORDERER' }, { name: 'placed-peer0', nodeType: 'CONSORTIUM_PEER' }], placement,
  });
  const unknown = await api('POST', '/networks/consortium/quickstart/check', plan({ hostId: 987654 }));
  assert.is(unknown.status, 400, unknown.text);
  assert.is(unknown.json.code, 'UNKNOWN_HOST', unknown.text);
  assert.ok(unknown.json.details.some((d: { field: string }) => d.field === 'placement.hostId'), unknown.text);
  const both = await api('POST', '/networks/consortium/quickstart/check', plan({ hostId: 1, hostLabels: { zone: 'b' } }));
  assert.is(both.status, 400, both.text);
  assert.ok(both.json.details.some((d: { field: string }) => d.field === 'placement.hostLabels'), both.text);
  const none = await api('POST', '/networks/consortium/quickstart/check', plan({ hostLabels: { zone: 'nowhere' } }));
  assert.is(none.status, 409, none.text);
  assert.is(none.json.code, 'NO_HOST_FITS', none.text);
  assert.equal(await made(), before);
});

t.run();
