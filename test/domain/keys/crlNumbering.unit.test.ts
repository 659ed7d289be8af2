// CRL numbers per CA key (RFC 5280 5.2.3): the decider serves the last CRL again while nothing
// changed and it is less than a day old, and otherwise issues the next number, so a number is
// never reused for other content, even for two CRLs within one second.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CRL_REISSUE_AFTER_MS, CRL_VALIDITY_MS, keys, type KeyCommand, type KeyEvent, type KeyState } from '../../../domain/keys/keys.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const t0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

function caKey(isCA = true): { state: KeyState; run: (c: KeyCommand) => KeyEvent[] } {
  let state = keys.initialState();
  const apply = (events: KeyEvent[]) => {
    state = events.reduce((s, e) => keys.evolve(s, e), state);
    return events;
  };
  apply(keys.decide({
    type: 'CreateKey', keyId: 5, name: 'ca', description: null, purpose: 'CA', providerId: 1, organizationId: null, spec: { algorithm: 'EC', curve: 'P-256' },
    material: { handle: 'h1', publicKeyPem: 'pub', ethereumAddress: null }, imported: false, at: at(0),
    certificate: { certificatePem: 'pem', serialNumber: 'AA', subject: 'CN=ca', notBefore: at(0), notAfter: at(3650 * 86_400_000), isCA, issuerKeyId: 5, profile: null },
  }, state));
  return { get state() { return state; }, run: (c) => apply(keys.decide(c, state)) };
}

const crlNumbers = (events: KeyEvent[]) => events.flatMap((e) => (e.type === 'CrlIssued' ? [e.data.crlNumber] : []));

test('the first CRL is number 1, valid 7 days; asking again while nothing changed serves the same CRL', () => {
  const ca = caKey();
  const first = ca.run({ type: 'IssueCrl', keyId: 5, at: at(1000) });
  assert.equal(crlNumbers(first), [1]);
  assert.equal(ca.state.crl, { crlNumber: 1, thisUpdate: at(1000), nextUpdate: at(1000 + CRL_VALIDITY_MS), revokedCount: 0 });
  assert.equal(ca.run({ type: 'IssueCrl', keyId: 5, at: at(1500) }), [], 'same second, nothing new: no new number');
  assert.equal(ca.run({ type: 'IssueCrl', keyId: 5, at: at(CRL_REISSUE_AFTER_MS) }), []);
  assert.is(ca.state.crl?.crlNumber, 1);
});

test('a revocation gives the next CRL the next number at once, even within the same second', () => {
  const ca = caKey();
  ca.run({ type: 'IssueCrl', keyId: 5, at: at(1000) });
  ca.run({ type: 'RevokeCertificate', caKeyId: 5, serialNumber: 'BB', keyId: 9, reason: 'keyCompromise', at: at(1100) });
  assert.equal(crlNumbers(ca.run({ type: 'IssueCrl', keyId: 5, at: at(1200) })), [2]);
  assert.is(ca.state.crl?.revokedCount, 1);
  assert.equal(ca.state.revocations, [{ serialNumber: 'BB', revokedAt: at(1100), reason: 'keyCompromise' }]);
});

test('after a day, after a new CA certificate and after a key rotation the CRL is issued again with a higher number', () => {
  const ca = caKey();
  ca.run({ type: 'IssueCrl', keyId: 5, at: at(0) });
  assert.equal(crlNumbers(ca.run({ type: 'IssueCrl', keyId: 5, at: at(CRL_REISSUE_AFTER_MS + 1) })), [2]);
  const cert = { ...ca.state.certificate!, serialNumber: 'CC' };
  ca.run({ type: 'RecordCertificate', keyId: 5, certificate: cert, reason: 'renewed', at: at(CRL_REISSUE_AFTER_MS + 2) });
  assert.equal(crlNumbers(ca.run({ type: 'IssueCrl', keyId: 5, at: at(CRL_REISSUE_AFTER_MS + 3) })), [3]);
  ca.run({ type: 'RotateKey', keyId: 5, material: { handle: 'h2', publicKeyPem: 'pub2', ethereumAddress: null }, certificate: { ...cert, serialNumber: 'DD' }, at: at(CRL_REISSUE_AFTER_MS + 4) });
  assert.equal(crlNumbers(ca.run({ type: 'IssueCrl', keyId: 5, at: at(CRL_REISSUE_AFTER_MS + 5) })), [4]);
});

test('a clock set back never reuses or lowers a number', () => {
  const ca = caKey();
  ca.run({ type: 'IssueCrl', keyId: 5, at: at(10_000) });
  assert.equal(crlNumbers(ca.run({ type: 'IssueCrl', keyId: 5, at: at(5_000) })), [2]);
});

test('a key whose certificate is not a CA has no CRL (400)', () => {
  const leaf = caKey(false);
  try {
    leaf.run({ type: 'IssueCrl', keyId: 5, at: at(0) });
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.match((err as Error).message, 'not a CA');
  }
});

test.run();
