import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chooseEvmClient } from '../../../domain/evm/evmClient.ts';
import { UnavailableError, ValidationError } from '../../../domain/shared/errors.ts';

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

test.run();
