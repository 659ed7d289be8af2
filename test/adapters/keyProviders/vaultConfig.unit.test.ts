import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseVaultProviderConfig } from '../../../adapters/keyProviders/vaultConfig.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

function fails(body: Parameters<typeof parseVaultProviderConfig>[0]): ValidationError {
  try {
    parseVaultProviderConfig(body);
  } catch (err) {
    assert.instance(err, ValidationError);
    return err as ValidationError;
  }
  return assert.unreachable('expected a ValidationError') as never;
}

test('IMPORT vaultConfig: mount is the KV path, transit defaults to "transit", trailing slashes go', () => {
  const c = parseVaultProviderConfig({ vaultConfig: { operation: 'IMPORT', address: 'https://vault.example.com:8200/', token: 's3cret', mount: 'kv/' } });
  assert.equal(c, { operation: 'IMPORT', connection: { address: 'https://vault.example.com:8200', token: 's3cret', transitPath: 'transit', kvPath: 'kv', namespace: undefined } });
});

test('the alternative config shape with transitPath and kvPath is an IMPORT', () => {
  const c = parseVaultProviderConfig({ config: { address: 'http://127.0.0.1:8200', token: 't', transitPath: 'lnm-transit', kvPath: 'lnm-kv' } });
  assert.equal(c.operation, 'IMPORT');
  assert.equal(c.operation === 'IMPORT' && [c.connection.transitPath, c.connection.kvPath], ['lnm-transit', 'lnm-kv']);
});

test('CREATE needs a version and takes port, mode and network with their defaults', () => {
  assert.equal(parseVaultProviderConfig({ vaultConfig: { operation: 'CREATE', version: '1.17' } }), {
    operation: 'CREATE', mode: 'docker', network: 'bridge', port: 8200, version: '1.17', transitPath: 'transit', kvPath: 'secret',
  });
  const err = fails({ vaultConfig: { operation: 'CREATE', port: 70000 } });
  assert.equal(err.details?.map((d) => d.field).sort(), ['vaultConfig.port', 'vaultConfig.version']);
});

test('IMPORT without address or token names both fields; a bad URL is refused without echoing the token', () => {
  assert.equal(fails({ vaultConfig: { operation: 'IMPORT' } }).details?.map((d) => d.field), ['vaultConfig.address', 'vaultConfig.token']);
  const err = fails({ config: { address: 'ftp://x', token: 'hvs.topsecret' } });
  assert.equal(err.details?.map((d) => d.field), ['config.address']);
  assert.not.ok(JSON.stringify({ m: err.message, d: err.details }).includes('topsecret'));
});

test('caCert must be a PEM certificate and reaches the connection', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const c = parseVaultProviderConfig({ config: { address: 'https://v:8200', token: 't', caCert: pem } });
  assert.is(c.operation === 'IMPORT' && c.connection.caCertPem, pem.trim());
  assert.equal(fails({ config: { address: 'https://v:8200', token: 't', caCert: 'not a cert' } }).details?.[0].field, 'config.caCert');
});

test('an unknown operation or a path with spaces is a 400', () => {
  assert.equal(fails({ vaultConfig: { operation: 'ADOPT' } }).details?.[0].field, 'vaultConfig.operation');
  assert.equal(fails({ config: { address: 'http://v', token: 't', kvPath: 'my kv' } }).details?.[0].field, 'config.kvPath');
  assert.equal(fails({}).details?.[0].field, 'vaultConfig');
});

test.run();
