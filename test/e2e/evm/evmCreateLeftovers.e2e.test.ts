// An evm network create leaves nothing half-made (issue 36 item 7, issue 35 item 4): five
// concurrent creates of one name make the keys of one network only; a create cut off by kill -9
// is failed at the next start, its keys removed and the failure audited; and on a host without
// besu a three-validator create is refused up front naming besu, with nothing made. The server is
// a child process; `besu` on its PATH is the stand-in (test/standins/besuStandin.ts), as in the
// besu stand-in test: these creates never start a node.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { installBesu, type InstalledBesu } from '../../standins/besuStandinInstall.ts';
import { onGlobalTeardown } from '../../helpers/globalTeardown.ts';

const t = suite('evm creates leave nothing half-made');
let besu: InstalledBesu;
let s: TestServer;
let bare: TestServer;
const api = (server: TestServer, method: string, path: string, body?: unknown) => call(server.api, method, path, { headers: adminAuth(), body });
const withBesu = () => ({ LNM_NODE_ENGINE: 'process', PATH: `${besu.binDir}:${process.env.PATH ?? ''}` });

async function validatorKeys(server: TestServer): Promise<Array<{ id: number; name: string }>> {
  const r = await api(server, 'GET', '/keys?purpose=VALIDATOR&limit=500');
  assert.is(r.status, 200, r.text);
  return r.json.items;
}

t.before(async () => {
  besu = installBesu({ real: null });
  onGlobalTeardown(() => besu.remove());
  s = await startServer({ env: withBesu() });
  // No besu anywhere: the PATH without the stand-in (this machine has no besu).
  bare = await startServer({ env: { LNM_NODE_ENGINE: 'process', LNM_EVM_CLIENT: 'auto' } });
});
t.after(async () => {
  await s?.stop();
  await bare?.stop();
});

t('five concurrent creates of one name: one 201, four 409s, and only the three keys of the network made', async () => {
  const body = { name: 'race-net', client: 'besu', validatorCount: 3, genesis: { chain_id: 47001, consensus: 'QBFT' } };
  const answers = await Promise.all(Array.from({ length: 5 }, () => api(s, 'POST', '/networks/evm', body)));
  const statuses = answers.map((a) => a.status).sort();
  assert.equal(statuses, [201, 409, 409, 409, 409], answers.map((a) => a.text).join('\n'));
  for (const a of answers.filter((x) => x.status === 409)) assert.is(a.json.code, 'NAME_TAKEN', a.text);
  const created = answers.find((a) => a.status === 201)!.json;
  const keys = await validatorKeys(s);
  assert.is(keys.length, 3, `validator keys left: ${keys.map((k) => k.name).join(', ')}`);
  assert.equal(keys.map((k) => k.id).sort(), created.validators.map((v: { key_id: number }) => v.key_id).sort());
});

t('a network of 17 to 32 generated validators is made (the checks before key generation once saw the 17th equal the first)', async () => {
  const r = await api(s, 'POST', '/networks', { name: 'input-many', type: 'evm', validatorCount: 32, genesis: { chain_id: 47006, consensus: 'QBFT', block_time: 2 } });
  assert.is(r.status, 201, r.text);
  const addresses = (r.json.validators as Array<{ address: string }>).map((v) => v.address.toLowerCase());
  assert.is(addresses.length, 32);
  assert.is(new Set(addresses).size, 32);
});

t('a create cut off by kill -9 is failed at the next start: its keys removed, no network, the failure audited', async () => {
  const body = { name: 'cut-net', client: 'besu', validatorCount: 32, genesis: { chain_id: 47002, consensus: 'QBFT' } };
  const before = (await validatorKeys(s)).length;
  const pending = api(s, 'POST', '/networks/evm', body).catch(() => null);
  // Kill as soon as the create has made its first keys (a state reached, not a time waited).
  for (;;) {
    const n = (await validatorKeys(s)).filter((k) => k.name.startsWith('cut-net-')).length;
    if (n >= 2) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await s.kill();
  await pending;
  s = await startServer({ env: withBesu(), dataDir: s.dataDir, databaseUrl: s.databaseUrl! });
  const networks = await api(s, 'GET', '/networks/evm?limit=100');
  const made = networks.json.items.some((n: { name: string }) => n.name === 'cut-net');
  assert.not.ok(made, 'the create was cut off before its network was recorded (else this test proves nothing)');
  const left = (await validatorKeys(s)).filter((k) => k.name.startsWith('cut-net-'));
  assert.equal(left.map((k) => k.name), [], 'the keys of the cut-off create are removed');
  assert.is((await validatorKeys(s)).length, before);
  const audit = await api(s, 'GET', '/audit-logs?resource_type=creation&status=failed&limit=50');
  assert.is(audit.status, 200, audit.text);
  const failed = audit.json.items.find((e: { resource_name: string }) => e.resource_name === 'evm-network cut-net');
  assert.ok(failed, audit.text);
  assert.is(failed.details.interrupted, true);
  assert.is(failed.details.step, 'validator keys');
  assert.ok(failed.details.made.length >= 2, JSON.stringify(failed.details));
  assert.equal(failed.details.removed, failed.details.made);
  // The name is free again: the same create now succeeds.
  const again = await api(s, 'POST', '/networks/evm', { ...body, validatorCount: 2 });
  assert.is(again.status, 201, again.text);
});

t('without besu, a three-validator auto create is refused up front naming besu, and nothing is made', async () => {
  const r = await api(bare, 'POST', '/networks/evm', { name: 'nobesu-net', client: 'auto', validatorCount: 3, genesis: { chain_id: 47003, consensus: 'QBFT' } });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'PROGRAM_MISSING', r.text);
  assert.match(r.json.message, 'besu');
  assert.equal((await validatorKeys(bare)).map((k) => k.name), []);
  assert.is((await api(bare, 'GET', '/networks/evm?limit=100')).json.items.length, 0);
  assert.is((await api(bare, 'GET', '/nodes?limit=100')).json.items.length, 0);
  // A name also taken and a bad balance are said in the same refusal: every check ran.
  assert.is((await api(bare, 'POST', '/networks/evm', { name: 'one-net', client: 'anvil', genesis: { chain_id: 47004, consensus: 'QBFT' } })).status, 201);
  const both = await api(bare, 'POST', '/networks/evm', { name: 'one-net', client: 'besu', validatorCount: 3, validatorBalance: 'lots', genesis: { chain_id: 47005, consensus: 'QBFT' } });
  assert.is(both.status, 409, both.text);
  assert.equal(both.json.details.map((d: { field: string }) => d.field).sort(), ['client', 'name', 'validatorBalance']);
  assert.is((await validatorKeys(bare)).length, 1, 'only the anvil network\'s key');
});

t.run();
