// Concurrent settings writes (issue 36, item 10): eight writes sent together, each changing a
// different field, all succeed, and the partial ones (POST) all land: the command handler
// re-decides on the stream's newer version instead of answering 409 WRONG_EXPECTED_VERSION;
// with If-Match, only a setting changed since the version read is a conflict.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';

const t = suite('settings under contention end to end');
let server: TestServer;

t.before(async () => {
  server = await startServer();
});
t.after(async () => server?.stop());

const fields = ['sessionIdleTimeoutMinutes', 'sessionAbsoluteTimeoutHours', 'loginWindowMinutes', 'loginLockoutMinutes', 'nodeDowntimeThreshold', 'diskSpaceWarningPercent', 'webhookFailureThreshold', 'resourceCheckIntervalSeconds'];

t('eight concurrent partial writes of different fields all answer 200 and all land', async () => {
  for (let round = 1; round <= 4; round++) {
    const answers = await Promise.all(fields.map((f, i) => call(server.api, 'POST', '/settings', { headers: adminAuth(), body: { [f]: 40 + round * 8 + i } })));
    assert.equal(answers.map((a) => a.status), fields.map(() => 200), `round ${round}: ${answers.filter((a) => a.status !== 200).map((a) => a.text).join(' | ')}`);
    const now = (await call(server.api, 'GET', '/settings', { headers: adminAuth() })).json.general;
    assert.equal(fields.map((f) => now[f]), fields.map((_, i) => 40 + round * 8 + i), `round ${round}: every change kept`);
  }
});

t('eight concurrent replacing writes (PUT) all answer 200', async () => {
  for (let round = 1; round <= 4; round++) {
    const answers = await Promise.all(fields.map((f, i) => call(server.api, 'PUT', '/settings', { headers: adminAuth(), body: { [f]: 60 + round * 8 + i } })));
    assert.equal(answers.map((a) => a.status), fields.map(() => 200), `round ${round}: ${answers.filter((a) => a.status !== 200).map((a) => a.text).join(' | ')}`);
    // A replace resets what it leaves out: the last one answered holds its own field.
    const now = (await call(server.api, 'GET', '/settings', { headers: adminAuth() })).json.general;
    assert.is(fields.filter((f, i) => now[f] === 60 + round * 8 + i).length, 1, 'one replace is the settings now');
  }
});

t('with If-Match, writes based on one version merge when their settings differ, and a setting changed since is a 409 naming it', async () => {
  const read = (await call(server.api, 'GET', '/settings', { headers: adminAuth() })).json;
  const h = { ...adminAuth(), 'if-match': String(read.version) };
  const answers = await Promise.all(fields.map((f, i) => call(server.api, 'POST', '/settings', { headers: h, body: { [f]: 90 + i } })));
  assert.equal(answers.map((a) => a.status), fields.map(() => 200), answers.filter((a) => a.status !== 200).map((a) => a.text).join(' | '));
  const now = (await call(server.api, 'GET', '/settings', { headers: adminAuth() })).json;
  assert.equal(fields.map((f) => now.general[f]), fields.map((_, i) => 90 + i), 'every disjoint change kept');
  // Same version read, a setting written meanwhile: the real conflict.
  const stale = await call(server.api, 'POST', '/settings', { headers: h, body: { loginWindowMinutes: 33 } });
  assert.is(stale.status, 409, stale.text);
  assert.is(stale.json.code, 'SETTINGS_CHANGED');
  assert.equal(stale.json.context.fields, ['loginWindowMinutes']);
  assert.is((await call(server.api, 'GET', '/settings', { headers: adminAuth() })).json.general.loginWindowMinutes, 90 + fields.indexOf('loginWindowMinutes'), 'nothing written');
  const untouched = await call(server.api, 'POST', '/settings', { headers: h, body: { cpuHighPercent: 77 } });
  assert.is(untouched.status, 200, 'a setting nobody changed since merges');
  const bad = await call(server.api, 'POST', '/settings', { headers: { ...adminAuth(), 'if-match': 'yesterday' }, body: { cpuHighPercent: 78 } });
  assert.is(bad.status, 400, bad.text);
});

t.run();
