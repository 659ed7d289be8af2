// Fabric releases side by side (issue 37 item 1) over the API, with the real 2.5 and 3.1 releases
// (LNM_FABRIC_RELEASES; a counted skip without both): a node made without a version runs the
// newest, one that asks for 2.5 runs 2.5 (its operations endpoint's /version says so, not only
// the record), GET /nodes/{id} and the defaults say which, and a version not found is a 400
// naming those that are, with nothing made.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, node, organization, removeConsortiumNodes } from './consortiumApi.ts';

const r25 = fabricReleaseOf('2.5');
const r31 = fabricReleaseOf('3.1');
const t = requires(suite('consortium nodes of two Fabric releases side by side'), 'fabric-releases', !r25.ok ? r25.reason : !r31.ok ? r31.reason : undefined);
const v25 = r25.ok ? r25.release.version : '';
const v31 = r31.ok ? r31.release.version : '';
let server: TestServer;
const api = apiOf(() => server);

t.before(async () => {
  server = await startServer({ env: consortiumEnv({ LNM_FABRIC_RELEASES: `${r25.ok && r25.release.binDir}:${r31.ok && r31.release.binDir}`, LNM_NODE_ENGINE: 'process' }) });
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

/** What the node's own operations endpoint says it runs. */
async function runningVersion(operationsPort: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${operationsPort}/version`);
  return ((await res.json()) as { Version: string }).Version;
}

t('a node records the release it runs: the newest by default, the one asked for otherwise; an unknown one is a 400 naming those found', async () => {
  const org = await organization(api, 'Releases', 'ReleasesMSP');
  const defaults = await api('GET', `/nodes/defaults/consortium-peer?organizationId=${org.id}`);
  assert.equal(defaults.json.fabricReleases, [v31, v25]);
  assert.is(defaults.json.fabricVersion, v31);

  const newest = await node(api, 'peer-newest', 'CONSORTIUM_PEER', org.id);
  assert.is(newest.fabric_version, v31);
  assert.is(newest.config.fabricVersion, v31);
  assert.is(await runningVersion(newest.config.operationsPort), v31);

  const older = await node(api, 'orderer-25', 'CONSORTIUM_ORDERER', org.id, { fabricVersion: v25 });
  assert.is(older.fabric_version, v25);
  const read = await api('GET', `/nodes/${older.id}`);
  assert.is(read.json.fabric_version, v25);
  assert.is(await runningVersion(older.config.operationsPort), v25);
  // The record is the node's event, so a restart runs the same release.
  assert.is((await api('POST', `/nodes/${older.id}/restart`)).json.status, 'running');
  assert.is(await runningVersion(older.config.operationsPort), v25);

  const unknown = await api('POST', '/nodes', { name: 'peer-unknown', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: org.id, config: { fabricVersion: '2.4.9' } });
  assert.is(unknown.status, 400, unknown.text);
  assert.match(unknown.json.message, `Fabric 2.4.9 is not among the releases this service finds: ${v31}, ${v25}`);
  assert.is(unknown.json.details[0].field, 'fabricVersion');
  const keys = (await api('GET', `/keys?organizationId=${org.id}&limit=100`)).json.items as Array<{ name: string }>;
  assert.not.ok(keys.some((k) => k.name.startsWith('peer-unknown')), 'no keys made for the refused node');
  // The release is chosen at creation only.
  const change = await api('PUT', `/nodes/${older.id}`, { config: { fabricVersion: v31 } });
  assert.is(change.status, 400, change.text);
});

t.run();
