import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allRoutes } from '../../http/routes/index.ts';
import { isPermission, permissionForEndpoint, PUBLIC } from '../../domain/users/permissions.ts';
import { buildOpenApi } from '../../http/openapi.ts';

const specPath = (p: string) => p.replace(/:([A-Za-z_]+)/g, '{$1}');

test('every route of the service declares a permission that exists (or PUBLIC)', () => {
  const missing = allRoutes.filter((r) => !r.permission || (r.permission !== PUBLIC && !isPermission(r.permission)));
  assert.equal(missing.map((r) => `${r.method.toUpperCase()} ${r.path} -> ${r.permission}`), []);
});

test("each route's permission is the one the permission table gives its endpoint", () => {
  const wrong: string[] = [];
  for (const r of allRoutes) {
    const expected = permissionForEndpoint(r.method.toUpperCase(), specPath(r.path));
    if (expected === undefined) wrong.push(`${r.method.toUpperCase()} ${specPath(r.path)} is not in the permission table`);
    else if (expected !== r.permission) wrong.push(`${r.method.toUpperCase()} ${specPath(r.path)} declares ${r.permission}, table says ${expected}`);
  }
  assert.equal(wrong, []);
});

test('no two routes share a method and path', () => {
  const seen = new Set<string>();
  const dups: string[] = [];
  for (const r of allRoutes) {
    const k = `${r.method} ${specPath(r.path).replace(/\{[^}]+\}/g, '{}')}`;
    if (seen.has(k)) dups.push(k);
    seen.add(k);
  }
  assert.equal(dups, []);
});

test('the OpenAPI document lists every route with its permission, parameters and error responses', () => {
  const doc = buildOpenApi(allRoutes, { version: '1', edition: 'pro', defaultPageSize: 50, maxPageSize: 500, bodyLimit: '1mb' }) as any;
  for (const r of allRoutes) {
    const op = doc.paths['/api/v1' + specPath(r.path)]?.[r.method];
    assert.ok(op, `${r.method} ${r.path} missing from the OpenAPI document`);
    assert.is(op['x-permission'], r.permission);
    assert.ok(op.responses['400'], 'documents 400');
    if (r.body) assert.ok(op.requestBody, `${r.path} documents its body`);
  }
  assert.ok(doc.components.schemas.ErrorBody);
});

test.run();
