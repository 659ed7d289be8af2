// Backup target credentials through the AWS SDK's providers, against s3rver over HTTPS:
// - a named profile from a shared credentials file (AWS_SHARED_CREDENTIALS_FILE) works for the
//   target's check, a backup with restic and the listing; a missing profile or one with wrong
//   keys is a 400 saying so;
// - the instance role and role assumption need AWS itself (the instance metadata service, STS),
//   which cannot run here: their failure is checked instead. With the metadata service and STS
//   pointed at a port that accepts and never answers, then at one that refuses, creating the
//   target is a 400 naming the provider and the reason, within a bounded time, and saves nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { startS3Server, type S3Server } from '../helpers/s3Server.ts';
import { until } from './evm/evmLifecycle.ts';

const t = suite('backup target credentials: named profile, instance role and role assumption failures');
let s3: S3Server;
let server: TestServer;
let dir: string;
let silent: net.Server;
const held = new Set<net.Socket>();
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });

t.before(async () => {
  s3 = await startS3Server(['creds']);
  dir = mkdtempSync(path.join(tmpdir(), 'lnm-creds-'));
  // No [default] profile: the instance-role chain must not find keys in the file.
  writeFileSync(path.join(dir, 'credentials'), `[lnm-backup]\naws_access_key_id = ${s3.accessKeyId}\naws_secret_access_key = ${s3.secretAccessKey}\n\n[wrong-keys]\naws_access_key_id = NOTAKEY\naws_secret_access_key = NOTASECRET\n`, { mode: 0o600 });
  // Accepts connections and never answers: a metadata service or STS that hangs.
  silent = net.createServer((sock) => {
    held.add(sock);
    sock.on('close', () => held.delete(sock));
  });
  await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
  const port = (silent.address() as net.AddressInfo).port;
  server = await startServer({
    env: {
      KEY_ENCRYPTION_KEY: 'backup-credentials-e2e-key-encryption-key-0123', EDITION: 'community', LNM_BACKUP_CHECK_SECONDS: '3600',
      AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'credentials'), AWS_CONFIG_FILE: path.join(dir, 'no-config'),
      AWS_EC2_METADATA_SERVICE_ENDPOINT: `http://127.0.0.1:${port}`, AWS_ENDPOINT_URL_STS: `http://127.0.0.1:${port}`,
    },
  });
});

t.after(async () => {
  await server?.stop();
  for (const s of held) s.destroy();
  if (silent.listening) await new Promise((res) => silent.close(res));
  await s3?.stop();
  s3?.remove();
  rmSync(dir, { recursive: true, force: true });
});

const target = (name: string, auth: Record<string, unknown>) => ({
  name, type: 'S3',
  config: { bucketName: 'creds', region: 'us-east-1', bucketPath: name, endpoint: s3.endpoint, forcePathStyle: true, caCertificate: s3.caPem, repositoryPassword: 'credentials-test-password', ...auth },
});

t('a named profile from the shared credentials file: target, backup and listing work with it', async () => {
  let r = await api('POST', '/backups/targets', target('profiled', { profile: 'lnm-backup' }));
  assert.is(r.status, 201, r.text);
  const id = r.json.id;
  r = await api('GET', `/backups/targets/${id}`);
  assert.is(r.json.config.profile, 'lnm-backup', r.text);
  r = await api('POST', '/backups', { target_id: id });
  assert.is(r.status, 201, r.text);
  const done = await until('the backup to end', async () => {
    const b = await api('GET', `/backups/${r.json.id}`);
    return b.json.status !== 'IN_PROGRESS' ? b.json : null;
  }, 120_000);
  assert.is(done.status, 'COMPLETED', JSON.stringify(done));
  assert.match(done.snapshot_id, /^[0-9a-f]{64}$/);
  const list = await api('GET', '/backups');
  assert.ok(list.json.items.some((b: { id: number; status: string }) => b.id === r.json.id && b.status === 'COMPLETED'), list.text);
  // An update checks the target again, with the same profile.
  r = await api('PUT', `/backups/targets/${id}`, target('profiled', { profile: 'lnm-backup' }));
  assert.is(r.status, 200, r.text);

  r = await api('POST', '/backups/targets', target('no-profile', { profile: 'no-such-profile' }));
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'BACKUP_TARGET_UNREACHABLE');
  assert.match(r.json.message, /no credentials from the named profile "no-such-profile"/);
  assert.ok(r.json.details.some((d: { field: string }) => d.field === 'credentials'), r.text);
  r = await api('POST', '/backups/targets', target('wrong-keys', { profile: 'wrong-keys' }));
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /access denied/);
});

async function refused(name: string, auth: Record<string, unknown>, provider: RegExp, reason: RegExp) {
  const started = Date.now();
  const r = await api('POST', '/backups/targets', target(name, auth));
  const ms = Date.now() - started;
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'BACKUP_TARGET_UNREACHABLE');
  assert.match(r.json.message, provider, r.json.message);
  assert.match(r.json.message, reason, r.json.message);
  assert.ok(ms < 15_000, `${name}: the answer took ${ms} ms`);
}

const instanceRole = { useInstanceRole: true };
const assumeRole = { roleArn: 'arn:aws:iam::123456789012:role/lnm-backup', externalId: 'lnm-external-id', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

t('instance role and role assumption with a silent metadata service and STS: a 400 naming the provider, in bounded time', async () => {
  await refused('instance-silent', instanceRole, /no credentials from the instance role/, /instance metadata service: .*(timed? ?out|TimeoutError)/i);
  await refused('assume-silent', assumeRole, /no credentials from the role assumption of arn:aws:iam::123456789012:role\/lnm-backup through STS/, /STS did not answer/);
});

t('instance role and role assumption with no metadata service and STS unreachable: a 400 naming the provider and the refusal', async () => {
  for (const s of held) s.destroy();
  await new Promise((res) => silent.close(res));
  await refused('instance-refused', instanceRole, /no credentials from the instance role/, /instance metadata service: Unable to connect to instance metadata service/);
  await refused('assume-refused', assumeRole, /role assumption of arn:aws:iam::123456789012:role\/lnm-backup/, /STS did not answer \(ECONNREFUSED\)/);
  const targets = await api('GET', '/backups/targets');
  assert.equal(targets.json.items.map((x: { name: string }) => x.name), ['profiled'], 'a refused target was saved');
});

t.run();
