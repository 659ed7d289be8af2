// The certificate sagas on a clock the test moves: expiry notices 30 days before notAfter and at
// notAfter (durable timers), and scheduled rotation renewing the certificate
// (CertificateAutoRenewed) or recording CertificateRenewalFailed when it cannot.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshDatabase } from '../helpers/postgres.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgresEventStore.ts';
import { createSagaRunner } from '../../sagas/sagaRunner.ts';
import { certificateExpirySaga } from '../../sagas/certificateExpiry.ts';
import { keyRotationSaga } from '../../sagas/keyRotation.ts';
import { handleCommand } from '../../domain/shared/commandHandler.ts';
import { keyStream, keys } from '../../domain/keys/keys.ts';
import { issueFromProfile } from '../../domain/keys/certificateRenewal.ts';
import { signingCaProfile, adminIdentityProfile } from '../../domain/organizations/organizationCertificates.ts';
import { createDatabaseKeyProvider } from '../../adapters/keyProviders/databaseKeyProvider.ts';
import { createKeyProviderRegistry } from '../../adapters/keyProviders/registry.ts';
import { createRegistryKeyServices } from '../../adapters/keyProviders/registryKeyServices.ts';
import type { EventStore } from '../../domain/shared/eventStore.ts';

const KEK = 'saga-test-key-encryption-key-001';
const DAY = 86_400_000;
const opts = (at: Date) => ({ metadata: { timestamp: at.toISOString() }, newId: randomUUID });
const spec = { algorithm: 'EC', curve: 'P-256' } as const;

async function setup(caDays?: number) {
  const db = await freshDatabase();
  await migrate(db.pool);
  const store = postgresEventStore(db.pool, { url: db.url, pollIntervalMs: 100 });
  const database = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: KEK, kdfIterations: 1000 });
  const services = createRegistryKeyServices(createKeyProviderRegistry({ pool: db.pool, database, keyEncryptionKey: KEK, kdfIterations: 1000 }));
  const start = new Date();
  const mk = async (keyId: number, profile: ReturnType<typeof signingCaProfile>, issuer: number) => {
    const g = await database.generateKey(`k${keyId}`, spec);
    const material = { handle: g.handle, publicKeyPem: g.publicKeyPem, ethereumAddress: null };
    const certificate = await issueFromProfile({ store, services, now: start }, keyId, { providerId: 1, handle: g.handle, spec, publicKeyPem: g.publicKeyPem }, profile, issuer);
    await handleCommand(store, keyStream(keyId), keys, { type: 'CreateKey', keyId, name: `k${keyId}`, description: null, purpose: 'GENERAL', providerId: 1, organizationId: null, spec, material, imported: false, certificate, at: start.toISOString() }, opts(start));
    return certificate;
  };
  const ca = await mk(1, signingCaProfile('saga.test', caDays), 1);
  const leaf = await mk(2, adminIdentityProfile('saga.test', 60), 1);
  return { db, store, services, start, leaf, ca };
}

async function waitForEvent(store: EventStore, keyId: number, type: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const e = (await store.readStream(keyStream(keyId))).find((x) => x.type === type);
    if (e) return e.data;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${type} on key ${keyId}`);
}

test('a 60-day certificate is reported expiring when the clock reaches 30 days before its end, and expired at its end, once each', async () => {
  const { db, store, start, leaf } = await setup();
  let now = start;
  const runner = createSagaRunner({ pool: db.pool, store, sagas: [certificateExpirySaga(store)], timerPollMs: 50, clock: () => now });
  await runner.start();
  try {
    await new Promise((r) => setTimeout(r, 300));
    assert.is((await store.readStream(keyStream(2))).filter((e) => e.type === 'CertificateExpiring').length, 0, 'nothing yet on day 0');
    now = new Date(new Date(leaf.notAfter).getTime() - 29 * DAY);
    const expiring = await waitForEvent(store, 2, 'CertificateExpiring');
    assert.is(expiring.serialNumber, leaf.serialNumber);
    now = new Date(new Date(leaf.notAfter).getTime() + 1000);
    await waitForEvent(store, 2, 'CertificateExpired');
    await new Promise((r) => setTimeout(r, 300));
    const kinds = (await store.readStream(keyStream(2))).map((e) => e.type).filter((t) => t.startsWith('CertificateExp'));
    assert.equal(kinds, ['CertificateExpiring', 'CertificateExpired']);
  } finally {
    await runner.stop();
  }
});

test('rotation on schedule renews the certificate after intervalDays (CertificateAutoRenewed); a key that cannot renew records CertificateRenewalFailed', async () => {
  const { db, store, services, start, leaf } = await setup();
  let now = start;
  await handleCommand(store, keyStream(2), keys, { type: 'ConfigureRotation', keyId: 2, enabled: true, intervalDays: 7, at: start.toISOString() }, opts(start));
  // Key 3 has no certificate at all: its scheduled renewal must fail visibly.
  const g = await createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: KEK, kdfIterations: 1000 }).generateKey('k3', spec);
  await handleCommand(store, keyStream(3), keys, { type: 'CreateKey', keyId: 3, name: 'k3', description: null, purpose: 'GENERAL', providerId: 1, organizationId: null, spec, material: { handle: g.handle, publicKeyPem: g.publicKeyPem, ethereumAddress: null }, imported: false, at: start.toISOString() }, opts(start));
  await handleCommand(store, keyStream(3), keys, { type: 'ConfigureRotation', keyId: 3, enabled: true, intervalDays: 7, at: start.toISOString() }, opts(start));
  const runner = createSagaRunner({ pool: db.pool, store, sagas: [keyRotationSaga(store, services)], timerPollMs: 50, clock: () => now });
  await runner.start();
  try {
    await new Promise((r) => setTimeout(r, 300));
    assert.is((await store.readStream(keyStream(2))).filter((e) => e.type === 'CertificateAutoRenewed').length, 0);
    now = new Date(start.getTime() + 7 * DAY + 1000);
    const renewed = await waitForEvent(store, 2, 'CertificateAutoRenewed');
    assert.is(renewed.previousSerialNumber, leaf.serialNumber);
    const failed = await waitForEvent(store, 3, 'CertificateRenewalFailed');
    assert.match(String(failed.reason), 'no certificate');
    // The timer is moved after the renewal's event is appended: wait for the move (up to 5 s).
    const nextDue = async () => new Date((await db.pool.query(`SELECT due_at FROM saga_timers WHERE id = 'key-rotation-2'`)).rows[0].due_at).getTime();
    for (const end = Date.now() + 5000; (await nextDue()) <= now.getTime() + 6 * DAY && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25));
    assert.ok((await nextDue()) > now.getTime() + 6 * DAY, 'the next rotation is scheduled an interval later');
  } finally {
    await runner.stop();
  }
});

test('scheduled renewal never outlives the CA: it is cut to the CA notAfter, and once the CA has expired the renewal fails saying so', async () => {
  const { db, store, services, start, ca } = await setup(100);
  let now = start;
  await handleCommand(store, keyStream(2), keys, { type: 'ConfigureRotation', keyId: 2, enabled: true, intervalDays: 50, at: start.toISOString() }, opts(start));
  const runner = createSagaRunner({ pool: db.pool, store, sagas: [keyRotationSaga(store, services)], timerPollMs: 50, clock: () => now });
  await runner.start();
  try {
    now = new Date(start.getTime() + 50 * DAY + 1000);
    const renewed = await waitForEvent(store, 2, 'CertificateAutoRenewed');
    assert.is(renewed.notAfter, ca.notAfter, 'a 60-day renewal on day 50 of a 100-day CA ends with the CA');
    now = new Date(start.getTime() + 100 * DAY + 2000);
    const failed = await waitForEvent(store, 2, 'CertificateRenewalFailed');
    assert.match(String(failed.reason), `expired on ${ca.notAfter}`);
  } finally {
    await runner.stop();
  }
});

test.run();
