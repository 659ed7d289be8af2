// Keys with the built-in database provider: keys created per second and sign-data per second for
// EC P-256, secp256k1 and RSA 2048, on a fresh migrated database of the bench's embedded
// PostgreSQL. Creation includes key generation, PBKDF2 (600,000 rounds, per-key salt) and the
// encrypted row insert; sign-data is the API's signData (base64 in, DER/PKCS#1 out) on a warm key.
// Prints JSON rows {metric, value, unit} on stdout (bench/run.ts collects them); progress on stderr.
import { createDatabaseKeyProvider } from '../adapters/keyProviders/databaseKeyProvider.ts';
import { signData } from '../adapters/keyProviders/signingData.ts';
import type { KeySpec } from '../domain/keys/keyProvider.ts';
import { freshMigratedDatabase } from './lib/cluster.ts';
import { runCleanups } from './lib/cleanup.ts';

const CREATE_MS = Number(process.env.BENCH_KEYS_CREATE_MS ?? 4000);
const SIGN_MS = Number(process.env.BENCH_KEYS_SIGN_MS ?? 2000);
const CONCURRENCY = 4;

async function rate(durationMs: number, op: () => Promise<unknown>): Promise<{ perSecond: number; count: number }> {
  const start = performance.now();
  let count = 0;
  const worker = async () => {
    while (performance.now() - start < durationMs) {
      await op();
      count++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { perSecond: Math.round((count / ((performance.now() - start) / 1000)) * 10) / 10, count };
}

async function main() {
  const db = await freshMigratedDatabase('keys');
  const provider = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: 'bench-key-encryption-key-0000000' });
  const specs: Array<[string, KeySpec]> = [['P-256', { algorithm: 'EC', curve: 'P-256' }], ['secp256k1', { algorithm: 'EC', curve: 'secp256k1' }], ['RSA 2048', { algorithm: 'RSA', keySize: 2048 }]];
  const rows: Array<{ metric: string; value: number; unit: string }> = [];
  const data = Buffer.from('bench payload: a transaction hash or a CSR, say').toString('base64');
  for (const [label, spec] of specs) {
    process.stderr.write(`[bench keys] creating ${label} keys for ${CREATE_MS} ms\n`);
    let n = 0;
    const created = await rate(CREATE_MS, () => provider.generateKey(`bench-${n++}`, spec));
    rows.push({ metric: `database provider: ${label} keys created`, value: created.perSecond, unit: 'keys/s' });
    const key = await provider.generateKey('bench-signer', spec);
    const ref = { handle: key.handle, spec, publicKeyPem: key.publicKeyPem };
    await signData(provider, ref, { data });
    process.stderr.write(`[bench keys] sign-data with ${label} for ${SIGN_MS} ms\n`);
    const signed = await rate(SIGN_MS, () => signData(provider, ref, { data }));
    rows.push({ metric: `database provider: ${label} sign-data`, value: signed.perSecond, unit: 'signatures/s' });
    if (spec.curve === 'secp256k1') {
      const eth = await rate(SIGN_MS, () => signData(provider, ref, { data, ethereum: 'keccak256' }));
      rows.push({ metric: 'database provider: secp256k1 Ethereum recoverable sign-data', value: eth.perSecond, unit: 'signatures/s' });
    }
  }
  process.stdout.write(JSON.stringify({ rows }) + '\n');
}

main()
  .then(runCleanups, async (err) => {
    process.stderr.write(`bench/keys.ts failed: ${(err as Error).stack}\n`);
    await runCleanups();
    process.exitCode = 1;
  })
  .finally(() => process.exit());
