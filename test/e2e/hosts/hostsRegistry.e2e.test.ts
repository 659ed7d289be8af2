// The node hosts registry against a real second Docker Engine (dockerd in a network namespace
// this test makes, tcp with --tlsverify, certificates made by openssl):
// - registering it checks the engine over mutual TLS and answers its version and running nodes;
//   the client key never comes back (answers, audit log, server log);
// - bad input is a 400 naming the reason and records nothing: a port nothing listens on, an
//   address nobody answers at, a client certificate the engine does not trust, a CA that did not
//   sign the engine's certificate, a key that is not PEM or not the certificate's, a non-tcp URL;
// - labels and capacity change; the periodic check sees the engine go away and come back;
// - delete.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { until } from '../evm/evmLifecycle.ts';

const t = requires(suite('node hosts: a second Docker Engine over mutual TLS'), 'docker-host', secondHostMissing());
let host: SecondDockerHost;
let server: TestServer;
let hostId: number;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const keyBody = () => host.pki.clientKey.split('\n')[1];

t.before(async () => {
  host = await startSecondDockerHost();
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'hosts-e2e-key-encryption-key-0123456789', LNM_HOST_CHECK_SECONDS: '1' } });
});

t.after(async () => {
  await server?.stop();
  await host?.remove();
});

t('registering the engine checks it over mutual TLS and never shows the client key', async () => {
  const r = await api('POST', '/hosts', { name: 'rack-2', url: host.url, tls: host.pki, labels: { zone: 'b' }, capacity: { maxNodes: 10 } });
  assert.is(r.status, 201, r.text);
  hostId = r.json.id;
  assert.is(r.headers.get('location'), `/api/v1/hosts/${hostId}`);
  assert.equal(r.json.status.reachable, true);
  assert.match(r.json.status.engineVersion, /^\d+\.\d+/);
  assert.is(r.json.status.runningNodes, 0);
  assert.is(r.json.externalIp, host.address);
  assert.equal(r.json.labels, { zone: 'b' });
  assert.equal(r.json.capacity, { maxNodes: 10 });
  assert.is(r.json.tls.hasClientKey, true);
  assert.not.ok(r.text.includes(keyBody()), 'the key is not in the answer');
  assert.not.ok(r.text.includes('PRIVATE KEY'));
  const got = await api('GET', `/hosts/${hostId}`);
  assert.is(got.status, 200);
  assert.equal(got.json.status.reachable, true);
  assert.not.ok(got.text.includes('PRIVATE KEY'));
});

t('a host that cannot be used is a 400 naming the reason, and nothing is recorded', async () => {
  const cases: Array<[string, Record<string, unknown>, RegExp, string]> = [
    ['refused', { url: `tcp://${host.address}:2399`, tls: host.pki }, /connection refused/, 'url'],
    ['silent', { url: `tcp://${host.address.replace(/\.2$/, '.3')}:2376`, tls: host.pki }, /did not answer within|cannot be reached/, 'url'],
    ['untrusted client', { url: host.url, tls: { ...host.pki, clientCertificate: host.foreignPki.clientCertificate, clientKey: host.foreignPki.clientKey } }, /TLS handshake/, 'tls'],
    ['wrong CA', { url: host.url, tls: { ...host.pki, caCertificate: host.foreignPki.caCertificate } }, /TLS handshake/, 'tls'],
    ['key of another certificate', { url: host.url, tls: { ...host.pki, clientKey: host.foreignPki.clientKey } }, /does not belong to the client certificate/, 'tls.clientKey'],
    ['not a PEM', { url: host.url, tls: { ...host.pki, caCertificate: 'not a certificate' } }, /is not a PEM certificate/, 'tls.caCertificate'],
  ];
  for (const [name, body, reason, field] of cases) {
    const started = Date.now();
    const r = await api('POST', '/hosts', { name: `bad-${name.replace(/ /g, '-')}`, ...body });
    assert.is(r.status, 400, `${name}: ${r.text}`);
    assert.is(r.json.code, 'HOST_UNREACHABLE', name);
    assert.match(r.json.message, reason, name);
    assert.is(r.json.details[0].field, field, name);
    assert.ok(Date.now() - started < 8000, `${name} answered within 8 s`);
    assert.not.ok(r.text.includes(keyBody()) || r.text.includes('PRIVATE KEY'), `${name}: no key in the error`);
  }
  const notTcp = await api('POST', '/hosts', { name: 'bad-url', url: 'http://example.org:2376', tls: host.pki });
  assert.is(notTcp.status, 400);
  assert.is(notTcp.json.details[0].field, 'url');
  const extra = await api('POST', '/hosts', { name: 'bad-extra', url: host.url, tls: host.pki, shell: 'rm -rf /' });
  assert.is(extra.status, 400);
  const blank = await api('POST', '/hosts', { name: '  ', url: host.url, tls: host.pki });
  assert.is(blank.status, 400);
  assert.is(blank.json.details[0].field, 'name');
  const taken = await api('POST', '/hosts', { name: 'RACK-2', url: host.url, tls: host.pki });
  assert.is(taken.status, 409);
  const list = await api('GET', '/hosts');
  assert.is(list.json.total, 1, 'only the good host is recorded');
  const audit = await api('GET', '/audit-logs?limit=200');
  assert.is(audit.status, 200);
  assert.is(audit.json.items.filter((e: any) => e.resource_type === 'node_host').length, 1, 'one audit entry: the registration');
  assert.not.ok(audit.text.includes(keyBody()), 'the key is not in the audit log');
  assert.not.ok(server.output().includes(keyBody()), 'the key is not in the server log');
});

t('labels, name and capacity change; the label filter lists by them', async () => {
  const r = await api('PUT', `/hosts/${hostId}`, { labels: { zone: 'c', rack: '2' }, capacity: { maxNodes: null } });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.labels, { zone: 'c', rack: '2' });
  assert.equal(r.json.capacity, { maxNodes: null });
  assert.is(r.json.name, 'rack-2');
  assert.is((await api('GET', '/hosts?label=zone=c')).json.total, 1);
  assert.is((await api('GET', '/hosts?label=zone=b')).json.total, 0);
  assert.is((await api('PUT', '/hosts/999', { labels: {} })).status, 404);
  assert.is((await api('PUT', `/hosts/${hostId}`, { labels: { 'bad key!': 'x' } })).status, 400);
});

t('the periodic check sees the engine go away and come back', async () => {
  await host.stop();
  const down = await until('the host seen unreachable', async () => {
    const r = await api('GET', `/hosts/${hostId}`);
    return r.json.status.reachable === false ? r.json : null;
  }, 20_000);
  assert.match(down.status.lastError, /connection refused|did not answer/);
  await host.start();
  const up = await until('the host seen reachable again', async () => {
    const r = await api('GET', `/hosts/${hostId}`);
    return r.json.status.reachable === true ? r.json : null;
  }, 20_000);
  assert.is(up.status.lastError, null);
});

t('a host is removed from the registry', async () => {
  assert.is((await api('DELETE', `/hosts/${hostId}`)).status, 204);
  assert.is((await api('GET', `/hosts/${hostId}`)).status, 404);
  assert.is((await api('DELETE', `/hosts/${hostId}`)).status, 404);
});

t.run();
