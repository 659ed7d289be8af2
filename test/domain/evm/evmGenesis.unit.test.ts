import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEvmGenesis, evmGenesisBlockHash, anvilHardforkFor, gasPricingOf, BFT_MIX_HASH } from '../../../domain/evm/evmGenesis.ts';
import { bftExtraDataValidators, cliqueExtraDataSigners } from '../../../domain/evm/genesisExtraData.ts';
import { besuGenesisBlockHash } from '../../../domain/evm/genesisBlockHash.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { assertGolden } from '../../helpers/golden.ts';

const validators = [
  '0xc98adee2e27b436582259500797fa6633f88367f',
  '0x1a82f57f6a423b19cc1b47be00a9336386363caf',
  '0x8e9a8b35a3f31344e596196a6911799d9dc49c94',
  '0xdf536f1174a453f63f8a97ee30853b31cbbe913a',
];
const accounts = {
  '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73': { balance: '200000000000000000000' },
  '0x627306090abaB3A6e1400e9345bC60c78a8BEf57': { balance: '90000000000000000000000' },
};
// The checksummed form is 0xc98adEE2E27b436582259500797Fa6633f88367F; one letter's case flipped.
const WRONG_CHECKSUM = '0xc98adEE2E27b436582259500797Fa6633f88367f';
const base = { chain_id: 1337, block_time: 5, validators, accounts };

function rejects(input: unknown, field: string, pattern?: RegExp): void {
  try {
    createEvmGenesis(input);
  } catch (err) {
    assert.instance(err, ValidationError);
    const e = err as ValidationError;
    assert.is(e.status, 400);
    const issue = e.details?.find((d) => d.field === field);
    assert.ok(issue, `expected an issue on ${field}, got ${JSON.stringify(e.details)}`);
    if (pattern) assert.match(issue!.message, pattern);
    return;
  }
  assert.unreachable(`expected a ValidationError on ${field}`);
}

const golden = (name: string, actual: string) => assertGolden(`evm/${name}`, actual);

const cases: Array<[string, Record<string, unknown>]> = [
  ['qbft', { ...base, consensus: 'QBFT' }],
  ['ibft2', { ...base, consensus: 'IBFT_2' }],
  ['clique', { ...base, consensus: 'Clique', block_time: 15, validators: validators.slice(0, 2) }],
  ['pow', { chain_id: 2018, consensus: 'PoW', difficulty: '0x400', accounts }],
  // the priced gas model: a minimum gas price and a base fee instead of free gas
  ['ibft2-priced', { ...base, consensus: 'IBFT_2', min_gas_price: '1000000000', base_fee: '7' }],
];
for (const [name, input] of cases) {
  test(`the ${name} genesis file equals its golden file, hashes included`, () => {
    const { file } = createEvmGenesis(input);
    golden(`genesis-${name}.json`, JSON.stringify(file, null, 2) + '\n');
    golden(`genesis-${name}.hashes.json`, JSON.stringify({ besu: evmGenesisBlockHash(file, 'besu'), anvil: evmGenesisBlockHash(file, 'anvil'), anvilHardfork: anvilHardforkFor(file) }, null, 2) + '\n');
  });
}

test('QBFT genesis: besu config keys, SPEC defaults mapped, validators in extraData, BFT mixHash', () => {
  const { file, settings } = createEvmGenesis({ ...base, consensus: 'QBFT', block_time: undefined });
  assert.equal(file.config.qbft, {
    blockperiodseconds: 5,
    epochlength: 30000,
    requesttimeoutseconds: 10,
    messageQueueLimit: 1000,
    duplicateMessageLimit: 100,
    futureMessagesLimit: 1000,
  });
  assert.is(file.config.chainId, 1337);
  assert.is(file.config.londonBlock, 0);
  assert.is(file.config.shanghaiTime, 0);
  assert.is(file.config.cancunTime, undefined);
  assert.is(file.mixHash, BFT_MIX_HASH);
  assert.is(file.difficulty, '0x1');
  assert.is(file.gasLimit, '0x1c9c380');
  assert.equal(bftExtraDataValidators(file.extraData), settings.validators);
  assert.is(settings.networkId, 1337);
});

test('block period defaults: BFT 5 s, Clique 15 s, PoW 12 s; block_time overrides', () => {
  assert.is(createEvmGenesis({ ...base, block_time: undefined, consensus: 'IBFT_2' }).settings.blockPeriodSeconds, 5);
  assert.is(createEvmGenesis({ ...base, block_time: undefined, consensus: 'Clique' }).settings.blockPeriodSeconds, 15);
  assert.is(createEvmGenesis({ chain_id: 5, consensus: 'PoW' }).settings.blockPeriodSeconds, 12);
  assert.is((createEvmGenesis({ ...base, block_time: 2, consensus: 'QBFT' }).file.config.qbft as Record<string, number>).blockperiodseconds, 2);
  assert.is(createEvmGenesis({ ...base, block_time: undefined, consensus: 'QBFT', ibft: { blockperiod: 3 } }).settings.blockPeriodSeconds, 3);
});

test('consensus spellings: IBFT_2, ibft2, QBFT, Clique, PoA (as Clique), PoW, ethash', () => {
  const c = (consensus: string, extra: Record<string, unknown> = {}) => createEvmGenesis({ ...base, consensus, ...extra }).settings.consensus;
  assert.is(c('IBFT_2'), 'IBFT_2');
  assert.is(c('ibft2'), 'IBFT_2');
  assert.is(c('qbft'), 'QBFT');
  assert.is(c('Clique'), 'CLIQUE');
  assert.is(c('PoA'), 'CLIQUE');
  assert.is(c('PoW', { validators: [] }), 'POW');
  assert.is(c('ethash', { validators: [] }), 'POW');
});

test('Clique genesis lists the signers in extraData and uses besu clique keys', () => {
  const { file } = createEvmGenesis({ ...base, consensus: 'PoA' });
  assert.equal(file.config.clique, { blockperiodseconds: 5, epochlength: 30000, createemptyblocks: true });
  assert.is(cliqueExtraDataSigners(file.extraData).length, 4);
  assert.is(file.config.shanghaiTime, undefined);
});

test('PoW genesis uses the given difficulty as genesis and ethash fixed difficulty', () => {
  const { file } = createEvmGenesis({ chain_id: 5, consensus: 'PoW', difficulty: '0x400' });
  assert.is(file.difficulty, '0x400');
  assert.equal(file.config.ethash, { fixeddifficulty: 1024 });
  assert.is(createEvmGenesis({ chain_id: 5, consensus: 'PoW' }).file.difficulty, '0x3e8');
});

test('gas_limit accepts hex and decimal strings and defaults to 30000000', () => {
  assert.is(createEvmGenesis({ ...base, consensus: 'QBFT', gas_limit: '0x1fffffffffffff' }).file.gasLimit, '0x1fffffffffffff');
  assert.is(createEvmGenesis({ ...base, consensus: 'QBFT', gas_limit: '8000000' }).file.gasLimit, '0x7a1200');
  assert.is(createEvmGenesis({ ...base, consensus: 'QBFT' }).file.gasLimit, '0x1c9c380');
});

test('camelCase spellings of the genesis fields are accepted', () => {
  const { settings } = createEvmGenesis({ chainId: 42, networkId: 7, consensus: 'QBFT', blockTime: 4, gasLimit: '0x1000000', validators });
  assert.equal([settings.chainId, settings.networkId, settings.blockPeriodSeconds, settings.gasLimit], [42, 7, 4, '0x1000000']);
});

test('accounts become alloc entries with hex balances under lower-case addresses', () => {
  const { file } = createEvmGenesis({ ...base, consensus: 'QBFT' });
  assert.equal(file.alloc['0x627306090abab3a6e1400e9345bc60c78a8bef57'], { balance: '0x130ee8e7179044400000' });
});

test('the besu hash of a generated genesis is the besu rule applied to the file', () => {
  const { file } = createEvmGenesis({ ...base, consensus: 'QBFT' });
  assert.is(evmGenesisBlockHash(file, 'besu'), besuGenesisBlockHash(file as unknown as Record<string, unknown>));
  assert.is.not(evmGenesisBlockHash(file, 'besu'), evmGenesisBlockHash(file, 'anvil'));
});

test('unknown consensus is refused and the accepted values are named', () => rejects({ ...base, consensus: 'raft' }, 'consensus', /IBFT_2, QBFT, Clique \(PoA\) or PoW/));
test('missing chain_id is refused', () => rejects({ consensus: 'QBFT', validators }, 'chain_id', /required/));
test('chain_id 0, negative, fractional or above the wallet limit is refused', () => {
  for (const chain_id of [0, -1, 1.5, 4503599627370477, 'abc']) rejects({ ...base, consensus: 'QBFT', chain_id }, 'chain_id', /integer from 1 to 4503599627370476/);
});
test('a BFT network without validators is refused', () => rejects({ ...base, consensus: 'QBFT', validators: [] }, 'validators', /at least one validator/));
test('a Clique network without signers is refused', () => rejects({ ...base, consensus: 'Clique', validators: [] }, 'validators', /at least one validator/));
test('a malformed validator address is refused with its index', () => rejects({ ...base, consensus: 'QBFT', validators: ['0x1234'] }, 'validators[0]', /20-byte hex address/));
test('a validator address with a wrong checksum is refused', () =>
  rejects({ ...base, consensus: 'QBFT', validators: [WRONG_CHECKSUM] }, 'validators[0]', /valid checksum/));
test('a duplicated validator is refused', () => rejects({ ...base, consensus: 'QBFT', validators: [validators[0], validators[0].toUpperCase().replace('0X', '0x')] }, 'validators[1]', /listed twice/));
test('validators on a PoW network are refused', () => rejects({ ...base, consensus: 'PoW' }, 'validators', /PoW has no validators/));
test('a non-hex difficulty is refused', () => rejects({ chain_id: 5, consensus: 'PoW', difficulty: '1000' }, 'difficulty', /hex string/));
test('a difficulty on a BFT network is refused as PoW-only', () => rejects({ ...base, consensus: 'QBFT', difficulty: '0x400' }, 'difficulty', /PoW only/));
test('a gas limit below 5000 or not a number is refused', () => {
  rejects({ ...base, consensus: 'QBFT', gas_limit: '0x10' }, 'gas_limit', /between 5000/);
  rejects({ ...base, consensus: 'QBFT', gas_limit: 'lots' }, 'gas_limit', /hex or decimal/);
});
test('a non-decimal or negative account balance is refused', () => {
  rejects({ ...base, consensus: 'QBFT', accounts: { [validators[0]]: { balance: '-1' } } }, `accounts.${validators[0]}.balance`, /decimal string of wei/);
  rejects({ ...base, consensus: 'QBFT', accounts: { [validators[0]]: { balance: '0x10' } } }, `accounts.${validators[0]}.balance`);
});
test('a bad account address is refused', () => rejects({ ...base, consensus: 'QBFT', accounts: { nope: { balance: '1' } } }, 'accounts.nope', /20-byte hex address/));
test('extradata longer than 32 bytes is refused', () => rejects({ ...base, consensus: 'QBFT', extradata: '0x' + '11'.repeat(33) }, 'extradata', /at most 32 bytes/));
test('block_time 0 is refused', () => rejects({ ...base, consensus: 'QBFT', block_time: 0 }, 'block_time'));
test('every problem is reported at once', () => {
  try {
    createEvmGenesis({ consensus: 'nope', chain_id: 0, validators: ['x'] });
    assert.unreachable();
  } catch (err) {
    const fields = ((err as ValidationError).details ?? []).map((d) => d.field).sort();
    assert.equal(fields, ['chain_id', 'consensus', 'validators[0]']);
  }
});

test('a network created with defaults is free gas: zeroBaseFee and a zero genesis base fee', () => {
  for (const consensus of ['QBFT', 'IBFT_2', 'Clique']) {
    const { file, settings } = createEvmGenesis({ ...base, consensus });
    assert.is(file.config.zeroBaseFee, true, consensus);
    assert.is(file.config.londonBlock, 0, 'zeroBaseFee needs a fork with a base fee');
    assert.is(file.baseFeePerGas, '0x0');
    assert.is(settings.minGasPrice, '0');
    assert.is(settings.baseFee, '0');
    assert.equal(gasPricingOf(settings, file), { free: true, minGasPrice: 0n, baseFee: 0n });
  }
  assert.is(createEvmGenesis({ chain_id: 2018, consensus: 'PoW' }).file.config.zeroBaseFee, true);
});

test('min_gas_price above 0 makes a priced network: no zeroBaseFee, base fee 1 gwei unless base_fee says otherwise', () => {
  const priced = createEvmGenesis({ ...base, consensus: 'QBFT', min_gas_price: '1000' });
  assert.is(priced.file.config.zeroBaseFee, undefined);
  assert.is(priced.file.baseFeePerGas, '0x3b9aca00');
  assert.equal(gasPricingOf(priced.settings, priced.file), { free: false, minGasPrice: 1000n, baseFee: 1_000_000_000n });
  const camel = createEvmGenesis({ ...base, consensus: 'QBFT', minGasPrice: '0x10', baseFee: 25 });
  assert.equal(gasPricingOf(camel.settings, camel.file), { free: false, minGasPrice: 16n, baseFee: 25n });
  assert.is(camel.file.baseFeePerGas, '0x19');
});

test('a network recorded before the gas settings existed reads as priced at 1 gwei with min gas price 0', () => {
  const { file } = createEvmGenesis({ ...base, consensus: 'QBFT', min_gas_price: '1' });
  const { zeroBaseFee: _z, ...config } = file.config;
  assert.equal(gasPricingOf({ minGasPrice: undefined, baseFee: undefined }, { config, baseFeePerGas: '0x3b9aca00' }), { free: false, minGasPrice: 0n, baseFee: 1_000_000_000n });
});

test('a malformed or out-of-range min_gas_price is refused naming the field', () => {
  rejects({ ...base, consensus: 'QBFT', min_gas_price: 'cheap' }, 'min_gas_price', /amount of wei/);
  rejects({ ...base, consensus: 'QBFT', min_gas_price: -1 }, 'min_gas_price', /amount of wei/);
  rejects({ ...base, consensus: 'QBFT', min_gas_price: (1n << 63n).toString() }, 'min_gas_price', /from 0 to 9223372036854775807/);
});

test('base_fee alone prices by the base fee; base_fee 0 with a min_gas_price keeps zeroBaseFee', () => {
  const byBaseFee = createEvmGenesis({ ...base, consensus: 'QBFT', base_fee: '1000000000' });
  assert.is(byBaseFee.file.config.zeroBaseFee, undefined);
  assert.equal(gasPricingOf(byBaseFee.settings, byBaseFee.file), { free: false, minGasPrice: 0n, baseFee: 1_000_000_000n });
  const byMinimum = createEvmGenesis({ ...base, consensus: 'QBFT', min_gas_price: '5', base_fee: '0' });
  assert.is(byMinimum.file.config.zeroBaseFee, true);
  assert.is(byMinimum.file.baseFeePerGas, '0x0');
  assert.equal(gasPricingOf(byMinimum.settings, byMinimum.file), { free: false, minGasPrice: 5n, baseFee: 0n });
  const explicitFree = createEvmGenesis({ ...base, consensus: 'QBFT', base_fee: '0', min_gas_price: 0 });
  assert.is(gasPricingOf(explicitFree.settings, explicitFree.file).free, true);
  rejects({ ...base, consensus: 'QBFT', base_fee: '1.5' }, 'base_fee', /amount of wei/);
});

test.run();
