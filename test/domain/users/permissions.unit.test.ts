import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  PERMISSIONS,
  PUBLIC,
  designedEndpointPermissions,
  endpointPermissions,
  hasPermission,
  isPermission,
  permissionCatalog,
  permissionForEndpoint,
  permissionTableMarkdown,
  rolePermissions,
} from '../../../domain/users/permissions.ts';

// SPEC.md lives in shared/ beside the repository (the same layout in CI).
const specPath = fileURLToPath(new URL('../../../../shared/SPEC.md', import.meta.url));
const docPath = fileURLToPath(new URL('../../../docs/permissions.md', import.meta.url));

const METHOD = '(?:GET|POST|PUT|DELETE)';

/** Every method + path of SPEC.md's Endpoints section: table rows and the prose that names paths. */
function specEndpoints(): string[] {
  const spec = readFileSync(specPath, 'utf8');
  const section = spec.slice(spec.indexOf('\n## Endpoints'), spec.indexOf('\n## Authentication'));
  const found = new Set<string>();
  for (const line of section.split('\n')) {
    const row = line.match(new RegExp(`^\\|\\s*(${METHOD}(?:,\\s*${METHOD})*)\\s*\\|\\s*([^|]+)\\|`));
    if (row) {
      const methods = row[1].split(/,\s*/);
      const paths = row[2]
        .replace(/\([^)]*\)/g, '')
        .split(/,| and /)
        .map((p) => p.trim().replace(/`/g, ''))
        .filter((p) => p.startsWith('/'));
      for (const m of methods) for (const p of paths) found.add(`${m} ${p}`);
      continue;
    }
    // Prose such as "GET and PUT /networks/{networkId}/channels/{channelName}/config".
    for (const m of line.matchAll(new RegExp(`(${METHOD}(?:(?:,\\s*| and )${METHOD})*)\\s+(/[^\\s,;)]+)`, 'g'))) {
      const path = m[2].replace(/\.$/, '');
      for (const method of m[1].split(/,\s*| and /)) found.add(`${method} ${path}`);
    }
  }
  // "An alternative listing path `/backup-targets` is also shown for targets": a listing is a GET.
  if (section.includes('`/backup-targets`')) found.add('GET /backup-targets');
  return [...found].sort();
}

test('the SPEC parser finds the endpoints of every Endpoints subsection (guards the parser itself)', () => {
  const found = specEndpoints();
  for (const e of ['POST /auth/login', 'GET /nodes/{id}/logs', 'PUT /networks/{networkId}/channels/{channelName}/anchor-peers', 'POST /metrics/undeploy', 'GET /audit-logs/{logId}', 'POST /webhooks/{id}/replay/{deliveryId}', 'GET /nodesharing/peers', 'GET /networks/templates/export/{id}', 'POST /plugins', 'GET /backup-targets']) {
    assert.ok(found.includes(e), `parser missed ${e}`);
  }
  assert.ok(found.length > 150, `only ${found.length} endpoints parsed`);
});

test('every SPEC.md endpoint has a permission, and the list names no endpoint SPEC.md lacks', () => {
  const spec = specEndpoints();
  const declared = endpointPermissions.map((e) => `${e.method} ${e.path}`).sort();
  assert.equal(spec.filter((e) => !declared.includes(e)), [], 'SPEC endpoints without a permission');
  assert.equal(declared.filter((e) => !spec.includes(e)), [], 'permissions for endpoints SPEC.md does not have');
  assert.is(new Set(declared).size, declared.length, 'an endpoint is listed twice');
});

test('every endpoint permission is a catalogued permission or PUBLIC, and only login and health are PUBLIC', () => {
  for (const e of [...endpointPermissions, ...designedEndpointPermissions]) {
    assert.ok(e.permission === PUBLIC || isPermission(e.permission), `${e.method} ${e.path}: ${e.permission}`);
  }
  const open = endpointPermissions.filter((e) => e.permission === PUBLIC).map((e) => `${e.method} ${e.path}`);
  assert.equal(open.sort(), ['GET /health', 'POST /auth/login']);
});

test('the names SPEC.md shows guard their operations: NETWORK_CREATE, SYSTEM_MONITOR, system:configure on all webhooks', () => {
  assert.is(permissionForEndpoint('POST', '/networks/consortium'), 'NETWORK_CREATE');
  assert.is(permissionForEndpoint('post', '/networks/evm'), 'NETWORK_CREATE');
  assert.is(permissionForEndpoint('GET', '/audit-logs'), 'SYSTEM_MONITOR');
  assert.is(permissionForEndpoint('GET', '/audit/logs/{id}'), 'SYSTEM_MONITOR');
  const hooks = endpointPermissions.filter((e) => e.path.startsWith('/webhooks'));
  assert.is(hooks.length, 9);
  assert.ok(hooks.every((e) => e.permission === 'system:configure'));
  assert.is(permissionForEndpoint('GET', '/nowhere'), undefined);
});

test('every permission has a one-line description and is used by at least one endpoint', () => {
  const used = new Set([...endpointPermissions, ...designedEndpointPermissions].map((e) => e.permission));
  for (const p of PERMISSIONS) {
    const d = permissionCatalog[p];
    assert.ok(d.length > 10 && !d.includes('\n'), `${p} description`);
    if (p !== 'API_KEY_MANAGE') assert.ok(used.has(p), `${p} guards no endpoint`);
  }
});

test('ADMIN holds every permission; VIEWER is within OPERATOR, OPERATOR within ADMIN', () => {
  assert.equal([...rolePermissions.ADMIN].sort(), [...PERMISSIONS].sort());
  for (const p of rolePermissions.VIEWER) assert.ok(hasPermission('OPERATOR', p), p);
  for (const p of rolePermissions.OPERATOR) assert.ok(hasPermission('ADMIN', p), p);
});

// POSTs that only read: JSON-RPC is POST by its protocol, and the gateway forwards reads only
// (a method that signs, sends or administers is refused whatever the caller's role).
const READS_BY_POST = new Set(['/networks/evm/{id}/rpc', '/networks/evm/{id}/nodes/{nodeId}/rpc']);

test('VIEWER can only read: apart from its own account, none of its permissions guards a write', () => {
  const writes = [...endpointPermissions, ...designedEndpointPermissions].filter((e) => e.method !== 'GET');
  for (const e of writes) {
    if (e.permission === PUBLIC || e.permission === 'ACCOUNT_SELF' || READS_BY_POST.has(e.path)) continue;
    assert.not.ok(hasPermission('VIEWER', e.permission), `VIEWER may ${e.method} ${e.path}`);
  }
});

test('VIEWER reads no audit logs, key material or settings; a VIEWER can still log out and see itself', () => {
  for (const p of ['SYSTEM_MONITOR', 'REPORT_GENERATE', 'KEY_CERTIFICATE_READ', 'KEY_SIGN', 'SETTINGS_READ', 'system:configure'] as const) {
    assert.not.ok(hasPermission('VIEWER', p), p);
  }
  assert.ok(hasPermission('VIEWER', 'NETWORK_READ'));
  assert.ok(hasPermission('VIEWER', 'ACCOUNT_SELF'));
});

test('OPERATOR runs networks, nodes, keys, backups and contracts but not users, others\' API keys, settings, webhooks or audit', () => {
  for (const p of ['NETWORK_CREATE', 'NODE_OPERATE', 'KEY_CREATE', 'KEY_SIGN', 'BACKUP_CREATE', 'CONTRACT_DEPLOY', 'CHAINCODE_MANAGE'] as const) {
    assert.ok(hasPermission('OPERATOR', p), p);
  }
  for (const p of ['USER_CREATE', 'USER_ROLE_ASSIGN', 'API_KEY_MANAGE', 'SETTINGS_UPDATE', 'system:configure', 'AUDIT_CONFIGURE', 'SYSTEM_MONITOR'] as const) {
    assert.not.ok(hasPermission('OPERATOR', p), p);
  }
});

test('docs/permissions.md holds the current role table (regenerate it from permissionTableMarkdown())', () => {
  const doc = readFileSync(docPath, 'utf8');
  const start = '<!-- permission-table:start -->\n';
  const end = '<!-- permission-table:end -->';
  const table = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end));
  assert.ok(doc.includes(start) && doc.includes(end), 'markers missing');
  assert.fixture(table, permissionTableMarkdown());
});

test.run();
