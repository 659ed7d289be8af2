import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { claimValues, localLoginAllowed, parseLocalLogin, parseRoleMap, roleFromClaims, usernameForClaims } from '../../../domain/users/oidc.ts';
import { userDirectory, type UserDirectoryState } from '../../../domain/users/userDirectory.ts';

const mapping = { claim: 'groups', map: parseRoleMap('admins=ADMIN, ops=OPERATOR,auditors=viewer'), defaultRole: null };

test('the role map parses GROUP=ROLE pairs and names a bad part', () => {
  assert.equal(mapping.map, { admins: 'ADMIN', ops: 'OPERATOR', auditors: 'VIEWER' });
  assert.equal(parseRoleMap(''), {});
  // The last = splits: a group name may hold = itself (LDAP DNs hold commas too, so those need a plain name).
  assert.equal(parseRoleMap('team=a=OPERATOR'), { 'team=a': 'OPERATOR' });
  assert.throws(() => parseRoleMap('admins=ROOT'), /"admins=ROOT" is not GROUP=ROLE/);
  assert.throws(() => parseRoleMap('=ADMIN'), /not GROUP=ROLE/);
});

test('the highest mapped role wins; no mapped group gives the default role, or none', () => {
  assert.is(roleFromClaims({ groups: ['ops', 'admins'] }, mapping), 'ADMIN');
  assert.is(roleFromClaims({ groups: ['ops', 'other'] }, mapping), 'OPERATOR');
  assert.is(roleFromClaims({ groups: 'auditors' }, mapping), 'VIEWER');
  assert.is(roleFromClaims({ groups: ['other'] }, mapping), null);
  assert.is(roleFromClaims({}, mapping), null);
  assert.is(roleFromClaims({ groups: ['other'] }, { ...mapping, defaultRole: 'VIEWER' }), 'VIEWER');
  assert.is(roleFromClaims({ groups: [{ name: 'admins' }] }, mapping), null, 'only strings count');
});

test('claim values: arrays, space- or comma-separated strings, dotted names into objects', () => {
  assert.equal(claimValues({ realm_access: { roles: ['a', 'b'] } }, 'realm_access.roles'), ['a', 'b']);
  assert.equal(claimValues({ scope: 'x y,z' }, 'scope'), ['x', 'y', 'z']);
  assert.equal(claimValues({ groups: 7 }, 'groups'), []);
});

test('LNM_LOCAL_LOGIN: on, off, or only the break-glass usernames (case-insensitive)', () => {
  assert.is(localLoginAllowed(parseLocalLogin('on'), 'anyone'), true);
  assert.is(localLoginAllowed(parseLocalLogin('OFF'), 'admin'), false);
  const only = parseLocalLogin('admin, rescue');
  assert.equal(only, { mode: 'only', usernames: ['admin', 'rescue'] });
  assert.is(localLoginAllowed(only, 'Admin'), true);
  assert.is(localLoginAllowed(only, 'vera'), false);
  assert.throws(() => parseLocalLogin('admin, bad name'), /"bad name" is not a username/);
});

test('the username of a first sign-in: preferred_username, else e-mail, else oidc-<sub>; a taken one gets a suffix', () => {
  const none = () => false;
  assert.is(usernameForClaims({ sub: 's1', preferred_username: 'alice', email: 'a@x.org' }, none), 'alice');
  assert.is(usernameForClaims({ sub: 's1', email: 'a@x.org' }, none), 'a@x.org');
  assert.is(usernameForClaims({ sub: 'abc-123' }, none), 'oidc-abc-123');
  assert.is(usernameForClaims({ sub: 's', preferred_username: 'Jöhn Doe' }, none), 'J-hn-Doe');
  const taken = new Set(['alice', 'alice-2']);
  assert.is(usernameForClaims({ sub: 's', preferred_username: 'alice' }, (n) => taken.has(n)), 'alice-3');
});

test('the user directory links an account to (issuer, subject) once: a second creation for it is a conflict, whatever the username or e-mail', () => {
  let s: UserDirectoryState = userDirectory.initialState();
  const external = { issuer: 'https://idp.example.org', subject: 'sub-1' };
  for (const e of userDirectory.decide({ type: 'CreateUser', userId: 1, username: 'alice', role: 'ADMIN', email: 'a@x.org', passwordHash: 'h', external, at: 't' }, s)) s = userDirectory.evolve(s, e);
  assert.equal(s.users[1].external, external);
  assert.throws(() => userDirectory.decide({ type: 'CreateUser', userId: 2, username: 'alice-2', role: 'VIEWER', email: null, passwordHash: 'h', external, at: 't' }, s), (e: Error & { code?: string }) => e.code === 'DUPLICATE_EXTERNAL_IDENTITY');
  // The same e-mail at another subject (or another issuer) is another account.
  assert.is(userDirectory.decide({ type: 'CreateUser', userId: 2, username: 'alice-2', role: 'VIEWER', email: 'a@x.org', passwordHash: 'h', external: { ...external, subject: 'sub-2' }, at: 't' }, s).length, 1);
  assert.is(userDirectory.decide({ type: 'CreateUser', userId: 3, username: 'alice-3', role: 'VIEWER', email: 'a@x.org', passwordHash: 'h', external: { ...external, issuer: 'https://other.example.org' }, at: 't' }, s).length, 1);
});

test.run();
