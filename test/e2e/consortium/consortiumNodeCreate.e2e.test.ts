// Consortium nodes asked for at once (issue 26: their keys and certificates are made side by
// side, only the ports and the record one at a time): three peers at once get three different
// ports and each its own identity and TLS keys; two requests for one name give one node and one
// 409, and the loser's keys are removed again. Real Fabric 2.5.12 peers.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, organization, removeConsortiumNodes } from './consortiumApi.ts';

const t = requires(suite('consortium nodes created at once (real Fabric 2.5.12)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

const keysNamed = async (organizationId: number, prefix: string) =>
  ((await api('GET', `/keys?organizationId=${organizationId}&limit=100`)).json.items as Array<{ name: string; id: number }>).filter((k) => k.name.startsWith(prefix));

t('three peers at once: three ports, each its own keys; one name asked twice at once: one node, one 409, no keys left over', async () => {
  const org = await organization(api, 'AtOnce', 'AtOnceMSP');
  const made = await Promise.all(['p-a', 'p-b', 'p-c'].map((name) => api('POST', '/nodes', { name, platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: org.id })));
  for (const r of made) assert.is(r.status, 201, r.text);
  const ports = made.map((r) => r.json.config.port);
  assert.is(new Set(ports).size, 3, `ports ${ports.join(', ')}`);
  for (const r of made) assert.is(r.json.status, 'running', `${r.json.name}: ${r.json.status} ${r.json.error ?? ''}`);
  for (const name of ['p-a', 'p-b', 'p-c']) {
    const keys = (await keysNamed(org.id, `${name}-`)).map((k) => k.name).sort();
    assert.equal(keys, [`${name}-identity`, `${name}-tls`]);
  }

  const twice = await Promise.all([0, 1].map(() => api('POST', '/nodes', { name: 'p-twice', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: org.id })));
  const statuses = twice.map((r) => r.status).sort();
  assert.equal(statuses, [201, 409], twice.map((r) => r.text.slice(0, 200)).join(' | '));
  const keys = (await keysNamed(org.id, 'p-twice-')).map((k) => k.name).sort();
  assert.equal(keys, ['p-twice-identity', 'p-twice-tls'], 'the refused request\'s keys were removed');
});

t.run();
