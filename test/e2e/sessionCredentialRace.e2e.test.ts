// Sessions never outlive the password they were opened with (issue 36, item 2): logins with the
// old password sent while an ADMIN resets it must not leave a working session once the reset
// has answered; a role downgrade ends the sessions opened under the higher role.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';

const t = suite('sessions and credential changes end to end');
let server: TestServer;
const PW = 'correct-horse-battery';

t.before(async () => {
  server = await startServer();
  // The racing logins fail once the reset lands: not a brute force to lock out.
  const r = await call(server.api, 'POST', '/settings', { headers: adminAuth(), body: { loginSoftLimit: 100, loginHardLimit: 1000 } });
  assert.is(r.status, 200, r.text);
});
t.after(async () => server?.stop());

const cookieOf = (r: { headers: Headers }) => r.headers.get('set-cookie')!.split(';')[0];
const me = (cookie: string) => call(server.api, 'GET', '/auth/me', { headers: { cookie } });

async function createUser(username: string, role = 'OPERATOR'): Promise<number> {
  const r = await call(server.api, 'POST', '/users', { headers: adminAuth(), body: { username, password: PW, role } });
  assert.is(r.status, 201, r.text);
  return r.json.id;
}

t('no login with the old password racing a reset leaves a working session after the reset answered', async () => {
  let opened = 0;
  const survivors: string[] = [];
  for (let round = 0; round < 4; round++) {
    const username = `racer-${round}`;
    const id = await createUser(username);
    // A first login warms the server's password check, so the racing ones are quick.
    assert.is((await call(server.api, 'POST', '/auth/login', { body: { username, password: PW } })).status, 200);
    let resetDone = false;
    const cookies: string[] = [];
    const loginLoop = async () => {
      // Until a little after the reset answered: the logins read the old password before it lands.
      for (let after = 0; after < 2; ) {
        const r = await call(server.api, 'POST', '/auth/login', { body: { username, password: PW } });
        if (r.status === 200) cookies.push(cookieOf(r));
        if (resetDone) after++;
      }
    };
    const loops = Array.from({ length: 8 }, loginLoop);
    await new Promise((r) => setTimeout(r, 50));
    const reset = await call(server.api, 'PUT', `/users/${id}/password`, { headers: adminAuth(), body: { password: 'a-brand-new-passphrase' } });
    assert.is(reset.status, 204, reset.text);
    resetDone = true;
    await Promise.all(loops);
    opened += cookies.length;
    for (const c of cookies) if ((await me(c)).status !== 401) survivors.push(`${username} ${c.slice(0, 20)}`);
  }
  assert.ok(opened > 8, `logins raced the resets (${opened} sessions opened)`);
  assert.equal(survivors, [], `${survivors.length} of ${opened} sessions opened with the old password still work after the reset`);
});

t('a role downgrade ends the sessions opened under the higher role; an upgrade keeps them', async () => {
  const id = await createUser('dora-downgraded', 'ADMIN');
  const cookie = cookieOf(await call(server.api, 'POST', '/auth/login', { body: { username: 'dora-downgraded', password: PW } }));
  assert.is((await me(cookie)).json.role, 'ADMIN');
  assert.is((await call(server.api, 'PUT', `/users/${id}/role`, { headers: adminAuth(), body: { role: 'OPERATOR' } })).status, 200);
  const after = await me(cookie);
  assert.is(after.status, 401, after.text);
  assert.is(after.json.code, 'UNAUTHENTICATED');
  const again = cookieOf(await call(server.api, 'POST', '/auth/login', { body: { username: 'dora-downgraded', password: PW } }));
  assert.is((await call(server.api, 'PUT', `/users/${id}/role`, { headers: adminAuth(), body: { role: 'ADMIN' } })).status, 200);
  const up = await me(again);
  assert.is(up.status, 200, 'an upgrade keeps the session');
  assert.is(up.json.role, 'ADMIN');
});

t.run();
