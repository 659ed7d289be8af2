// The route table of http/app.ts: routes are matched within their method and first path segment
// before the full router, and that must answer exactly as the full table did: the first declared
// route that matches wins, a method with a route whose first segment is a parameter keeps the
// table's order, another method on a known path is a 405, an unknown path a 404, HEAD is GET.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import { createApp } from '../../http/app.ts';
import type { RouteDef } from '../../http/route.ts';
import type { AppDeps } from '../../application/deps.ts';
import { freePortBlock } from '../helpers/ports.ts';

const route = (method: RouteDef['method'], path: string, answer: string): RouteDef => ({
  method, path, summary: answer, tags: ['test'], permission: 'PUBLIC', responses: {},
  async handler({ params }) {
    return { body: { answer, params } };
  },
});

const routes = [
  route('get', '/things/special', 'special'),
  route('get', '/things/:id', 'thing'),
  route('get', '/other/:id', 'other'),
  // POST has a route whose first segment is a parameter, declared before a literal one it shadows.
  route('post', '/:kind/run', 'any-run'),
  route('post', '/jobs/run', 'jobs-run'),
  route('delete', '/things/:id', 'deleted'),
];

const deps = {
  config: { version: 'test', edition: 'enterprise', defaultPageSize: 10, maxPageSize: 100, bodyLimit: '1mb' },
  clock: () => new Date(),
  log: { info: () => undefined, error: () => undefined, warn: () => undefined, debug: () => undefined },
} as unknown as AppDeps;

let server: Server;
let base = '';

test.before(async () => {
  const port = await freePortBlock([0]);
  server = createApp(deps, routes).listen(port, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${port}/api/v1`;
});

test.after(() => new Promise<void>((r) => server.close(() => r())));

const get = async (path: string, method = 'GET') => {
  const r = await fetch(base + path, { method });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
};

test('the first declared route that matches answers, within a group as in the full table', async () => {
  assert.is((await get('/things/special')).json.answer, 'special');
  const thing = await get('/things/7');
  assert.is(thing.json.answer, 'thing');
  assert.equal(thing.json.params, { id: '7' });
  assert.is((await get('/other/x')).json.answer, 'other');
  assert.is((await get('/things/7', 'DELETE')).json.answer, 'deleted');
});

test('a method with a parameter as first segment keeps the table order', async () => {
  assert.is((await get('/jobs/run', 'POST')).json.answer, 'any-run');
});

test('405 for another method on a known path, 404 for an unknown one, HEAD answered by GET, case as before', async () => {
  const put = await get('/things/7', 'PUT');
  assert.is(put.status, 405);
  assert.is(put.json.code, 'METHOD_NOT_ALLOWED');
  const missing = await get('/nothing/here');
  assert.is(missing.status, 404);
  assert.is(missing.json.code, 'ROUTE_NOT_FOUND');
  assert.is((await get('/things/7/deeper')).status, 404);
  assert.is((await get('/things/7', 'HEAD')).status, 200);
  // koa-router matches case-insensitively: the full router still answers what the groups miss.
  assert.is((await fetch(base.replace('/api/v1', '/API/V1') + '/Things/7')).status, 200);
  assert.is((await get('/THINGS/special')).json.answer, 'special');
});

test.run();
