// A CA signs only while it is a CA and not expired, and what it signs never outlives it:
// refused with the latest allowed date when asked for explicitly, cut back when automatic.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issuingCaCertificate, validityWithinCa } from '../../../domain/keys/issuingCaChecks.ts';
import type { CertificateRecord, KeyState } from '../../../domain/keys/keys.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const DAY = 86_400_000;
const now = new Date('2030-06-01T12:00:00Z');

function caRecord(notAfter: Date, isCA = true): CertificateRecord {
  return { certificatePem: 'pem', serialNumber: '01', subject: 'CN=ca', notBefore: new Date(now.getTime() - 365 * DAY).toISOString(), notAfter: notAfter.toISOString(), isCA, issuerKeyId: 7, profile: null };
}
function caKey(certificate: CertificateRecord | null): KeyState {
  return { status: 'active', keyId: 7, name: 'org-ca', certificate, revokedSerials: [], revocations: [], crl: null, crlNumber: 0, notified: { expiring: null, expired: null } };
}
function validationError(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

test('a CA key with a valid CA certificate may sign; its certificate is returned', () => {
  const cert = caRecord(new Date(now.getTime() + 10 * DAY));
  assert.is(issuingCaCertificate(caKey(cert), 7, now), cert);
});

test('a key without a certificate, with a non-CA certificate or with an expired CA certificate cannot sign, each with its own reason on caKeyId', () => {
  const none = validationError(() => issuingCaCertificate(caKey(null), 7, now));
  assert.match(none.message, 'no certificate');
  const leaf = validationError(() => issuingCaCertificate(caKey(caRecord(new Date(now.getTime() + DAY), false)), 7, now));
  assert.match(leaf.message, 'not a CA certificate');
  const expiredAt = new Date(now.getTime() - 1000);
  const expired = validationError(() => issuingCaCertificate(caKey(caRecord(expiredAt)), 7, now));
  assert.match(expired.message, `expired on ${expiredAt.toISOString()}`);
  assert.match(expired.message, 'renew it or sign with another CA'); // the action, not the route
  for (const e of [none, leaf, expired]) assert.is(e.details?.[0].field, 'caKeyId');
});

test('an explicit request ending after the CA is refused, naming the CA notAfter and the most validityDays that fit', () => {
  const caEnd = new Date(now.getTime() + 10 * DAY + 3600_000);
  const requested = { notBefore: now, notAfter: new Date(now.getTime() + 30 * DAY) };
  const e = validationError(() => validityWithinCa(caRecord(caEnd), requested, 'reject', 'validityDays'));
  assert.match(e.message, caEnd.toISOString());
  assert.match(e.message, 'validityDays at most 10');
  assert.is(e.details?.[0].field, 'validityDays');
  const inside = { notBefore: now, notAfter: caEnd };
  assert.equal(validityWithinCa(caRecord(caEnd), inside, 'reject'), inside, 'ending exactly with the CA is allowed');
});

test('automatic issuance is cut back to the CA notAfter; a CA ending before the start is refused', () => {
  const caEnd = new Date(now.getTime() + 5 * DAY);
  const w = validityWithinCa(caRecord(caEnd), { notBefore: now, notAfter: new Date(now.getTime() + 365 * DAY) }, 'clamp');
  assert.is(w.notAfter.getTime(), caEnd.getTime());
  assert.is(w.notBefore.getTime(), now.getTime());
  const shorter = { notBefore: now, notAfter: new Date(now.getTime() + DAY) };
  assert.equal(validityWithinCa(caRecord(caEnd), shorter, 'clamp'), shorter, 'a shorter validity is kept');
  const e = validationError(() => validityWithinCa(caRecord(new Date(now.getTime() - DAY)), shorter, 'clamp'));
  assert.match(e.message, 'renew the CA');
});

test.run();
