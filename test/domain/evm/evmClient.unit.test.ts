import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chooseEvmClient } from '../../../domain/evm/evmClient.ts';
import { UnavailableError, ValidationError } from '../../../domain/shared/errors.ts';
import { createEvmGenesis, evmGenesisBlockHash } from '../../../domain/evm/evmGenesis.ts';
import { gethGenesisFile } from '../../../domain/evm/gethGenesis.ts';

test('auto takes besu when it is available, whatever the validator count', () => {
  assert.is(chooseEvmClient('auto', { besuAvailable: true, validatorCount: 1 }), 'besu');
  assert.is(chooseEvmClient('auto', { besuAvailable: true, validatorCount: 4 }), 'besu');
});

test('auto falls back to anvil only for a one-validator network', () => {
  assert.is(chooseEvmClient('auto', { besuAvailable: false, validatorCount: 1 }), 'anvil');
  assert.throws(() => chooseEvmClient('auto', { besuAvailable: false, validatorCount: 4 }), (e: unknown) => e instanceof UnavailableError && /4 validators need besu/.test((e as Error).message));
});

test('anvil is refused for several validators; besu is refused when not installed', () => {
  assert.throws(() => chooseEvmClient('anvil', { besuAvailable: true, validatorCount: 2 }), (e: unknown) => e instanceof ValidationError);
  assert.throws(() => chooseEvmClient('besu', { besuAvailable: false, validatorCount: 1 }), (e: unknown) => e instanceof UnavailableError);
  assert.is(chooseEvmClient('anvil', { besuAvailable: true, validatorCount: 1 }), 'anvil');
});

test('geth: auto takes it for Clique where found, before besu; it runs Clique only', () => {
  assert.is(chooseEvmClient('auto', { besuAvailable: true, gethAvailable: true, validatorCount: 3, consensus: 'CLIQUE' }), 'geth');
  assert.is(chooseEvmClient('auto', { besuAvailable: true, gethAvailable: true, validatorCount: 3, consensus: 'QBFT' }), 'besu');
  assert.is(chooseEvmClient('auto', { besuAvailable: false, gethAvailable: false, validatorCount: 1, consensus: 'CLIQUE' }), 'anvil');
  assert.throws(() => chooseEvmClient('auto', { besuAvailable: false, gethAvailable: false, validatorCount: 3, consensus: 'CLIQUE' }), (e: unknown) => e instanceof UnavailableError && /besu or geth/.test((e as Error).message));
  assert.is(chooseEvmClient('geth', { besuAvailable: false, gethAvailable: true, validatorCount: 3, consensus: 'CLIQUE' }), 'geth');
  assert.throws(() => chooseEvmClient('geth', { besuAvailable: true, gethAvailable: true, validatorCount: 3, consensus: 'IBFT_2' }), (e: unknown) => e instanceof ValidationError && /Clique/.test((e as Error).message));
  assert.throws(() => chooseEvmClient('geth', { besuAvailable: true, gethAvailable: false, validatorCount: 3, consensus: 'CLIQUE' }), (e: unknown) => e instanceof UnavailableError && /LNM_GETH_BIN/.test((e as Error).message));
});

test('the geth genesis: geth\'s clique { period, epoch }, everything else as the network\'s file, the same block 0 hash', () => {
  const g = createEvmGenesis({ chain_id: 43801, consensus: 'CLIQUE', block_time: 2, clique: { epoch: 100 }, validators: ['0x' + '11'.repeat(20), '0x' + '22'.repeat(20)] });
  const file = gethGenesisFile(g.file, g.settings);
  assert.equal((file.config as Record<string, unknown>).clique, { period: 2, epoch: 100 });
  assert.is((file.config as Record<string, unknown>).londonBlock, 0);
  assert.is((file.config as Record<string, unknown>).zeroBaseFee, undefined);
  assert.is(file.extraData, g.file.extraData);
  assert.is(evmGenesisBlockHash(g.file, 'geth'), evmGenesisBlockHash(g.file, 'besu'));
  const q = createEvmGenesis({ chain_id: 43802, consensus: 'QBFT', validators: ['0x' + '11'.repeat(20)] });
  assert.throws(() => gethGenesisFile(q.file, q.settings), (e: unknown) => e instanceof ValidationError);
});

test.run();
