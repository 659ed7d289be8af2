// The state file repair the anvil launcher runs before every start (adapters/evm/anvilStateFile.ts),
// on state files shaped like the ones anvil 1.7.1 writes (compact JSON, blocks in any order).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEvmGenesis } from '../../../domain/evm/evmGenesis.ts';
import { spawnSync } from 'node:child_process';
import { anvilGenesisMarks, anvilStateCleanupScript, dropPlaceholderGenesisBlocks, marksJson, withoutPlaceholderGenesisBlocks } from '../../../adapters/evm/anvilStateFile.ts';

const ZERO = '0x0000000000000000000000000000000000000000';

function block(number: number, timestamp: number, parentHash = '0x' + '00'.repeat(32), miner = ZERO): string {
  return JSON.stringify({
    header: {
      parentHash,
      miner,
      number: '0x' + number.toString(16),
      gasLimit: '0x2faf080',
      timestamp: '0x' + timestamp.toString(16),
      extraData: '0x',
      // the genesis below is free gas (the default): base fee 0 in block 0 and after
      baseFeePerGas: '0x0',
    },
    transactions: [],
    ommers: [],
    withdrawals: null,
  });
}

/** A state file as anvil writes it, with a u64 beyond 2^53 and a string holding JSON punctuation. */
function stateText(blocks: string[]): string {
  return (
    '{"block":{"number":"0x1","gas_limit":18446744073709551615,"basefee":875000000,"blob_excess_gas_and_price":null},' +
    '"accounts":{"0x0000000000000000000000000000000000001234":{"nonce":0,"balance":"0x7b","code":"0x","storage":{"note":"]},{\\"blocks\\":["}}},' +
    '"best_block_number":"0x1",' +
    `"blocks":[${blocks.join(',')}],` +
    '"transactions":[],"historical_states":null}'
  );
}

const { file } = createEvmGenesis({ chain_id: 4242, consensus: 'QBFT', validators: ['0xc98adee2e27b436582259500797fa6633f88367f'] });
const marks = anvilGenesisMarks(file as unknown as Record<string, unknown>);
const genesis0 = block(0, 0);
const block1 = block(1, 1795238809, '0xa5e7ef012df739160fa410ca247347eeec74a02229cb542158661ac483c69280');
const placeholderA = block(0, 1795238808);
const placeholderB = block(0, 1795238900);

test('the placeholder block 0s of earlier starts are dropped and the genesis block 0 is kept, wherever they sit', () => {
  for (const order of [
    [placeholderA, block1, genesis0],
    [genesis0, placeholderA, block1, placeholderB],
    [block1, placeholderB, placeholderA, genesis0],
  ]) {
    const { text, dropped } = withoutPlaceholderGenesisBlocks(stateText(order), marks);
    const kept = order.filter((b) => b !== placeholderA && b !== placeholderB);
    assert.is(dropped, order.length - kept.length);
    assert.is(text, stateText(kept), 'everything but the dropped entries is left byte for byte');
    const blocks = (JSON.parse(text) as { blocks: Array<{ header: { number: string; timestamp: string } }> }).blocks;
    assert.equal(blocks.filter((b) => b.header.number === '0x0').map((b) => b.header.timestamp), ['0x0']);
  }
});

test('large integers in the state file survive the rewrite unrounded', () => {
  const { text } = withoutPlaceholderGenesisBlocks(stateText([placeholderA, genesis0, block1]), marks);
  assert.ok(text.includes('"gas_limit":18446744073709551615'));
});

test('a state file holding only the genesis block 0 is left as it is', () => {
  const before = stateText([genesis0, block1]);
  assert.equal(withoutPlaceholderGenesisBlocks(before, marks), { text: before, dropped: 0 });
});

test('a saved chain with no block 0 of this genesis is refused rather than started with another genesis', () => {
  assert.throws(() => withoutPlaceholderGenesisBlocks(stateText([placeholderA, block1]), marks), /no block 0 built from this network's genesis/);
  const otherCoinbase = block(0, 0, undefined, '0x2222222222222222222222222222222222222222');
  assert.throws(() => withoutPlaceholderGenesisBlocks(stateText([otherCoinbase]), marks), /no block 0/);
});

test('the genesis fields anvil copies into block 0 are read from the genesis file', () => {
  const custom = { ...(file as unknown as Record<string, unknown>), timestamp: '0x5f5e100', coinbase: '0x2222222222222222222222222222222222222222', baseFeePerGas: '0x7' };
  assert.equal(anvilGenesisMarks(custom), { number: 0n, timestamp: 0x5f5e100n, coinbase: '0x2222222222222222222222222222222222222222', baseFee: 7n });
  const genesisBlock = block(0, 0x5f5e100, undefined, '0x2222222222222222222222222222222222222222').replace('"baseFeePerGas":"0x0"', '"baseFeePerGas":"0x7"');
  const placeholder = block(0, 0x5f5e100); // same second, but anvil's own coinbase and base fee
  assert.is(withoutPlaceholderGenesisBlocks(stateText([genesisBlock, placeholder]), anvilGenesisMarks(custom)).dropped, 1);
});

test('the state file on disk is rewritten in place', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'anvil-state-'));
  try {
    const statePath = path.join(dir, 'anvil-state.json');
    writeFileSync(statePath, stateText([placeholderA, block1, genesis0]));
    assert.is(await dropPlaceholderGenesisBlocks(statePath, file as unknown as Record<string, unknown>), 1);
    assert.is(readFileSync(statePath, 'utf8'), stateText([block1, genesis0]));
    assert.is(await dropPlaceholderGenesisBlocks(statePath, file as unknown as Record<string, unknown>), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the same cleanup as a plain Node.js program (a pod\'s init step): rewrites the file, leaves a missing one, refuses another genesis', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'anvil-state-'));
  // As the init container runs it: `node -e <script> <state file> <marks>`, no TypeScript, no module of this repository.
  const run = (statePath: string) => spawnSync(process.execPath, ['-e', anvilStateCleanupScript(), statePath, marksJson(marks)], { encoding: 'utf8', cwd: dir, env: { PATH: process.env.PATH ?? '' } });
  try {
    const statePath = path.join(dir, 'anvil-state.json');
    writeFileSync(statePath, stateText([placeholderA, block1, placeholderB, genesis0]));
    const r = run(statePath);
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /2 placeholder block 0 dropped/);
    assert.is(readFileSync(statePath, 'utf8'), stateText([block1, genesis0]), 'the same bytes as the in-process cleanup writes');
    assert.is(run(path.join(dir, 'absent.json')).status, 0, 'a new volume has no state file yet');
    writeFileSync(statePath, stateText([placeholderA, block1]));
    const refused = run(statePath);
    assert.is(refused.status, 1);
    assert.match(refused.stderr, /no block 0 built from this network's genesis/);
    assert.is(readFileSync(statePath, 'utf8'), stateText([placeholderA, block1]), 'left untouched');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
