// Deciders of organizations, mspId claims, keys and key providers run through the generic
// command handler on PostgreSQL, with their projections; certificates signed by the real
// database key provider. A rebuild of the read models gives the same tables as live projection.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgresEventStore.ts';
import { createProjector } from '../../../projections/projector.ts';
import { keysProjection } from '../../../projections/keys.ts';
import { organizationsProjection } from '../../../projections/organizations.ts';
import { keyProvidersProjection, listKeyProviders } from '../../../projections/keyProviders.ts';
import { handleCommand } from '../../../domain/shared/commandHandler.ts';
import { ConflictError } from '../../../domain/shared/errors.ts';
import { mspIdClaimStream, mspIdClaims } from '../../../domain/organizations/mspIdClaims.ts';
import { keyStream, keys } from '../../../domain/keys/keys.ts';
import { keyProviderStream, keyProviders } from '../../../domain/keyProviders/keyProviders.ts';
import { organizationStream, organizations } from '../../../domain/organizations/organizations.ts';
import { issueFromProfile, renewCertificate } from '../../../domain/keys/certificateRenewal.ts';
import { createDatabaseKeyProvider } from '../../../adapters/keyProviders/databaseKeyProvider.ts';
import { createKeyProviderRegistry } from '../../../adapters/keyProviders/registry.ts';
import { createRegistryKeyServices } from '../../../adapters/keyProviders/registryKeyServices.ts';
import { signingCaProfile, adminIdentityProfile } from '../../../domain/organizations/organizationCertificates.ts';

const KEK = 'int-test-key-encryption-key-0001';
const opts = () => ({ metadata: { timestamp: new Date().toISOString() }, newId: randomUUID });

async function setup() {
  const db = await freshDatabase();
  await migrate(db.pool);
  const store = postgresEventStore(db.pool, { url: db.url, pollIntervalMs: 200 });
  const projector = createProjector({ pool: db.pool, store, projections: [keyProvidersProjection, organizationsProjection, keysProjection] });
  await projector.start();
  const database = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: KEK, kdfIterations: 1000 });
  const services = createRegistryKeyServices(createKeyProviderRegistry({ pool: db.pool, database, keyEncryptionKey: KEK, kdfIterations: 1000 }));
  return { db, store, projector, services, database };
}

async function createCaAndLeaf(ctx: Awaited<ReturnType<typeof setup>>) {
  const now = new Date();
  const mk = async (keyId: number, name: string) => {
    const g = await ctx.database.generateKey(name, { algorithm: 'EC', curve: 'P-256' });
    return { handle: g.handle, publicKeyPem: g.publicKeyPem, ethereumAddress: null };
  };
  const caMat = await mk(1, 'ca');
  const caCert = await issueFromProfile({ store: ctx.store, services: ctx.services, now }, 1, { providerId: 1, handle: caMat.handle, spec: { algorithm: 'EC', curve: 'P-256' }, publicKeyPem: caMat.publicKeyPem }, signingCaProfile('org.test'), 1);
  await handleCommand(ctx.store, keyStream(1), keys, { type: 'CreateKey', keyId: 1, name: 'ca', description: null, purpose: 'SIGN_CA', providerId: 1, organizationId: null, spec: { algorithm: 'EC', curve: 'P-256' }, material: caMat, imported: false, certificate: caCert, at: now.toISOString() }, opts());
  const leafMat = await mk(2, 'leaf');
  const leafCert = await issueFromProfile({ store: ctx.store, services: ctx.services, now }, 2, { providerId: 1, handle: leafMat.handle, spec: { algorithm: 'EC', curve: 'P-256' }, publicKeyPem: leafMat.publicKeyPem }, adminIdentityProfile('org.test'), 1);
  const r = await handleCommand(ctx.store, keyStream(2), keys, { type: 'CreateKey', keyId: 2, name: 'leaf', description: null, purpose: 'ADMIN', providerId: 1, organizationId: null, spec: { algorithm: 'EC', curve: 'P-256' }, material: leafMat, imported: false, certificate: leafCert, at: now.toISOString() }, opts());
  await ctx.projector.waitFor(r.lastPosition!);
  return { caCert, leafCert };
}

test('two organizations racing for one mspId: exactly one claim wins, the other gets a 409 naming the mspId', async () => {
  const { store } = await setup();
  const results = await Promise.allSettled([1, 2].map((id) => handleCommand(store, mspIdClaimStream('RaceMSP'), mspIdClaims, { type: 'ClaimMspId', mspId: 'RaceMSP', organizationId: id, at: new Date().toISOString() }, opts())));
  assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
  const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  assert.instance(lost.reason, ConflictError);
  assert.match(lost.reason.message, 'RaceMSP');
  const other = await handleCommand(store, mspIdClaimStream('racemsp'), mspIdClaims, { type: 'ClaimMspId', mspId: 'racemsp', organizationId: 3, at: new Date().toISOString() }, opts());
  assert.is(other.events.length, 1, 'mspIds are case-sensitive');
});

test('an organization still used is not deleted: 409 naming what uses it', async () => {
  const { store } = await setup();
  await handleCommand(store, organizationStream(1), organizations, { type: 'CreateOrganization', organizationId: 1, fields: { name: 'O', mspId: 'OMSP', description: null, providerId: 1 }, keys: { signKeyId: 1, tlsKeyId: 2, adminKeyId: 3 }, at: new Date().toISOString() }, opts());
  try {
    await handleCommand(store, organizationStream(1), organizations, { type: 'DeleteOrganization', organizationId: 1, usedBy: [{ kind: 'node', id: 7, name: 'peer0' }], at: new Date().toISOString() }, opts());
    assert.unreachable();
  } catch (err) {
    assert.instance(err, ConflictError);
    assert.match((err as Error).message, 'node peer0 (7)');
  }
});

test('revocation lands in the CA read model once; a second revocation is a conflict; renewal gives a new serial from the same CA', async () => {
  const ctx = await setup();
  const { leafCert } = await createCaAndLeaf(ctx);
  const at = new Date().toISOString();
  const r = await handleCommand(ctx.store, keyStream(1), keys, { type: 'RevokeCertificate', caKeyId: 1, serialNumber: leafCert.serialNumber, keyId: 2, reason: 'superseded', at }, opts());
  await ctx.projector.waitFor(r.lastPosition!);
  const rows = (await ctx.db.pool.query('SELECT serial_number, revocation_reason FROM certificates WHERE revoked_at IS NOT NULL')).rows;
  assert.equal(rows, [{ serial_number: leafCert.serialNumber, revocation_reason: 'superseded' }]);
  try {
    await handleCommand(ctx.store, keyStream(1), keys, { type: 'RevokeCertificate', caKeyId: 1, serialNumber: leafCert.serialNumber, keyId: 2, reason: 'superseded', at }, opts());
    assert.unreachable();
  } catch (err) {
    assert.instance(err, ConflictError);
  }
  const pos = await renewCertificate({ store: ctx.store, services: ctx.services, now: new Date(), ...opts() }, 2, 'renewed');
  await ctx.projector.waitFor(pos!);
  const key = (await ctx.db.pool.query('SELECT serial_number, issuer_key_id FROM keys WHERE id = 2')).rows[0];
  assert.is.not(key.serial_number, leafCert.serialNumber);
  assert.is(key.issuer_key_id, 1);
});

test('expiry notices are recorded once per certificate, and not for a certificate the key no longer has', async () => {
  const ctx = await setup();
  const { leafCert } = await createCaAndLeaf(ctx);
  const mark = (serialNumber: string) => handleCommand(ctx.store, keyStream(2), keys, { type: 'MarkCertificateExpiring', keyId: 2, serialNumber, at: new Date().toISOString() }, opts());
  assert.is((await mark(leafCert.serialNumber)).events.length, 1);
  assert.is((await mark(leafCert.serialNumber)).events.length, 0);
  assert.is((await mark('DEADBEEF')).events.length, 0);
});

test('a key provider marked default takes over from the database provider; the read models rebuild to the same tables', async () => {
  const ctx = await setup();
  await createCaAndLeaf(ctx);
  const r = await handleCommand(ctx.store, keyProviderStream(2), keyProviders, { type: 'CreateKeyProvider', providerId: 2, name: 'v', providerType: 'VAULT', isDefault: true, publicConfig: { address: 'http://127.0.0.1:1' }, sealedConfig: 'v1:x', at: new Date().toISOString() }, opts());
  await ctx.projector.waitFor(r.lastPosition!);
  const list = await listKeyProviders(ctx.db.pool);
  assert.equal(list.map((p) => [p.id, p.isDefault]), [[1, false], [2, true]]);
  const snapshot = async () => ({
    keys: (await ctx.db.pool.query('SELECT * FROM keys ORDER BY id')).rows,
    certs: (await ctx.db.pool.query('SELECT * FROM certificates ORDER BY serial_number')).rows,
    providers: (await ctx.db.pool.query('SELECT * FROM key_providers ORDER BY id')).rows,
  });
  const before = await snapshot();
  await ctx.projector.stop();
  await ctx.projector.rebuild();
  assert.equal(await snapshot(), before);
});

test.run();
