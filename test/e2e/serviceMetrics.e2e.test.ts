// The service's own metrics (GET /metrics) through the real server: labelled by declared route,
// fed by the event store, projections, sagas and nodes, and guarded by the metricsAccess setting.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
const auth = adminAuth();

test.before(async () => {
  s = await startServer();
});
test.after(async () => {
  await s?.stop();
});

/** The value of one sample line `name{labels} value` (labels matched as a substring). */
function sample(text: string, name: string, labels = ''): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    if (labels && !line.includes(labels)) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

test('GET /metrics needs credentials by default and answers the exposition format to an authenticated caller', async () => {
  const anonymous = await call(s.url, 'GET', '/metrics');
  assert.is(anonymous.status, 401);
  assert.is(anonymous.json.code, 'UNAUTHENTICATED');
  const r = await call(s.url, 'GET', '/metrics', { headers: auth });
  assert.is(r.status, 200, r.text);
  assert.match(r.headers.get('content-type') ?? '', /text\/plain/);
  assert.match(r.text, /# TYPE lnm_http_request_duration_seconds histogram/);
});

test('requests are counted by declared route, method and status, never by raw URL', async () => {
  await call(s.api, 'GET', '/health');
  for (let i = 0; i < 3; i++) await call(s.api, 'GET', `/nodes/${987650 + i}`, { headers: auth });
  const r = await call(s.url, 'GET', '/metrics', { headers: auth });
  assert.is(sample(r.text, 'lnm_http_request_duration_seconds_count', 'route="/api/v1/nodes/:id",method="GET",status="404"'), 3);
  assert.ok((sample(r.text, 'lnm_http_request_duration_seconds_count', 'route="/api/v1/health",method="GET",status="200"') ?? 0) >= 1);
  assert.not.match(r.text, /98765\d/, 'no raw id in any label');
});

test('event store appends, projection and saga lag, and nodes by platform and status are exported', async () => {
  // A write: a user created is an append the projections must apply.
  const created = await call(s.api, 'POST', '/users', { headers: auth, body: { username: 'metrics-viewer', password: 'viewer-password-123', role: 'VIEWER', email: 'v@example.com' } });
  assert.is(created.status, 201, created.text);
  const r = await call(s.url, 'GET', '/metrics', { headers: auth });
  assert.ok((sample(r.text, 'lnm_event_store_appends_total', 'outcome="ok"') ?? 0) >= 1, 'appends counted');
  assert.ok((sample(r.text, 'lnm_event_store_append_duration_seconds_count', 'outcome="ok"') ?? 0) >= 1, 'append latency');
  assert.ok((sample(r.text, 'lnm_event_store_head_position') ?? 0) >= 2);
  assert.is(sample(r.text, 'lnm_projection_lag_events', 'projection="users"'), 0, 'the write returned after its projection: no lag');
  assert.ok(sample(r.text, 'lnm_saga_lag_events', 'saga="node-health#0"') !== null, 'saga lag exported (node health runs per node shard)');
  assert.match(r.text, /# TYPE lnm_nodes gauge/);
  assert.match(r.text, /# TYPE lnm_node_health_checks_total counter/);
  assert.match(r.text, /# TYPE lnm_node_probe_duration_seconds histogram/);
  assert.match(r.text, /# TYPE lnm_webhook_deliveries gauge/);
  assert.not.match(r.text, /lnm_metrics_gauge_read_errors_total [1-9]/, 'every gauge was read');
  // A VIEWER holds METRICS_READ.
  const viewer = await call(s.url, 'GET', '/metrics', { headers: { authorization: 'Basic ' + Buffer.from('metrics-viewer:viewer-password-123').toString('base64') } });
  assert.is(viewer.status, 200, viewer.text);
});

test('metricsAccess loopback lets this host scrape without credentials; a bad value is a 400 naming the field', async () => {
  let r = await call(s.api, 'POST', '/settings', { headers: auth, body: { metricsAccess: 'everyone' } });
  assert.is(r.status, 400, r.text);
  assert.ok(r.json.details.some((d: { field: string }) => d.field.includes('metricsAccess')), r.text);
  r = await call(s.api, 'GET', '/settings', { headers: auth });
  assert.is(r.json.general.metricsAccess, 'authenticated');
  r = await call(s.api, 'POST', '/settings', { headers: auth, body: { metricsAccess: 'loopback' } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.general.metricsAccess, 'loopback');
  r = await call(s.url, 'GET', '/metrics');
  assert.is(r.status, 200, r.text);
  r = await call(s.api, 'POST', '/settings', { headers: auth, body: { metricsAccess: 'authenticated' } });
  assert.is(r.status, 200);
  assert.is((await call(s.url, 'GET', '/metrics')).status, 401);
});

test('GET /metrics is in the OpenAPI document, outside /api/v1', async () => {
  const doc = (await call(s.url, 'GET', '/api/swagger/doc.json')).json;
  assert.ok(doc.paths['/metrics']?.get, 'documented');
  assert.is(doc.paths['/metrics'].get['x-permission'], 'METRICS_READ');
});

test.run();
