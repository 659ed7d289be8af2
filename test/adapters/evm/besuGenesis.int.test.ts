// Runs a real one-validator QBFT besu from the generated genesis and config when `besu` is on
// PATH (or BESU_PATH is set): block 0 must have the hash we compute, and the validator API must
// answer as the JSON-RPC client expects. Skipped, with a printed reason, when there is no besu.
import { suite } from 'uvu';
import { requires } from '../../helpers/requirements.ts';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { computeAddress } from 'ethers';
import { createEvmGenesis, evmGenesisBlockHash } from '../../../domain/evm/evmGenesis.ts';
import { besuConfigToml, besuOptions, besuCommandWithConfigFile } from '../../../domain/evm/besuConfig.ts';
import { evmJsonRpc } from '../../../adapters/evm/jsonRpc.ts';
import { onGlobalTeardown } from '../../helpers/globalTeardown.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';

const besu = process.env.BESU_PATH ?? (spawnSync('sh', ['-c', 'command -v besu'], { encoding: 'utf8' }).stdout.trim() || null);
const besuSuite = suite('besu runs the generated genesis');
const run = requires(besuSuite, 'besu', besu ? undefined : 'no `besu` on PATH and BESU_PATH unset');


const ctx: { dir: string; child?: ChildProcess } = { dir: '' };
besuSuite.after(async () => {
  const child = ctx.child;
  if (child && child.exitCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

run('block 0 of a QBFT besu node has the computed hash, and the validator API answers', async () => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'besu-genesis-'));
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  const keyHex = '0x' + Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url').toString('hex').padStart(64, '0');
  const validator = computeAddress(keyHex);
  const { file, settings } = createEvmGenesis({
    chain_id: 4243,
    consensus: 'QBFT',
    block_time: 1,
    validators: [validator],
    accounts: { '0x627306090abab3a6e1400e9345bc60c78a8bef57': { balance: '90000000000000000000000' } },
  });
  const genesisFile = path.join(ctx.dir, 'genesis.json');
  const keyFile = path.join(ctx.dir, 'key');
  const configFile = path.join(ctx.dir, 'config.toml');
  writeFileSync(genesisFile, JSON.stringify(file, null, 2));
  writeFileSync(keyFile, keyHex, { mode: 0o600 });
  const [p2pPort, rpcHttpPort, rpcWsPort, metricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const options = besuOptions({
    role: 'validator',
    consensus: 'QBFT',
    networkId: settings.networkId,
    dataPath: path.join(ctx.dir, 'data'),
    genesisFile,
    nodePrivateKeyFile: keyFile,
    p2pPort,
    rpcHttpPort,
    rpcWsPort,
    metricsPort,
  });
  writeFileSync(configFile, besuConfigToml(options));
  ctx.child = spawn(besu!, besuCommandWithConfigFile(configFile), { stdio: 'ignore' });
  onGlobalTeardown(() => void ctx.child?.kill('SIGTERM'));

  const rpc = evmJsonRpc(`http://127.0.0.1:${rpcHttpPort}`, { timeoutMs: 2000 });
  const deadline = Date.now() + 180_000;
  while ((await rpc.blockNumber().catch(() => -1)) < 1) {
    assert.ok(Date.now() < deadline && ctx.child.exitCode === null, 'besu produced no block within 180 s');
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.is((await rpc.blockByNumber(0))?.hash, evmGenesisBlockHash(file, 'besu'));
  assert.equal(await rpc.validatorsByBlockNumber('qbft', 'latest'), [validator]);
  const newcomer = '0xc98adEE2E27b436582259500797Fa6633f88367F';
  assert.is(await rpc.proposeValidatorVote(newcomer, true), true);
  assert.equal(await rpc.pendingVotes(), { [newcomer]: true });
  assert.is(await rpc.discardValidatorVote(newcomer), true);
  assert.equal(await rpc.pendingVotes(), {});
  assert.is(await rpc.syncing(), false);
});

besuSuite.run();
