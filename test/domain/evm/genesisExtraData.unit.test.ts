import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeRlp, getAddress } from 'ethers';
import {
  bftExtraDataValidators,
  cliqueExtraData,
  cliqueExtraDataSigners,
  ibft2ExtraData,
  qbftExtraData,
} from '../../../domain/evm/genesisExtraData.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const zeros32 = '00'.repeat(32);
const four = [
  '0xc98adee2e27b436582259500797fa6633f88367f',
  '0x1a82f57f6a423b19cc1b47be00a9336386363caf',
  '0x8e9a8b35a3f31344e596196a6911799d9dc49c94',
  '0xdf536f1174a453f63f8a97ee30853b31cbbe913a',
];

test('QBFT extraData for one validator equals the one in besu qbft-core genesis_migrating_validator_contract.json', () => {
  assert.is(
    qbftExtraData(['0xeac51e3fe1afc9894f0dfeab8ceb471899b932df']),
    `0xf83aa0${zeros32}d594eac51e3fe1afc9894f0dfeab8ceb471899b932dfc080c0`,
  );
});

test('IBFT 2.0 extraData for one validator equals the besu docs genesis-file example (null vote, 4-byte round)', () => {
  assert.is(
    ibft2ExtraData(['0x9811ebc35d7b06b3fa8dc5809a1f9c52751e1deb']),
    `0xf83ea0${zeros32}d5949811ebc35d7b06b3fa8dc5809a1f9c52751e1deb808400000000c0`,
  );
});

test('IBFT 2.0 extraData for four validators has the f87e list header besu networks use', () => {
  const hex = ibft2ExtraData(four);
  assert.ok(hex.startsWith(`0xf87ea0${zeros32}f854`));
  assert.ok(hex.endsWith('808400000000c0'));
});

test('QBFT and IBFT 2.0 differ only in the vote and round encoding', () => {
  const q = decodeRlp(qbftExtraData(four)) as unknown[];
  const i = decodeRlp(ibft2ExtraData(four)) as unknown[];
  assert.equal(q[1], i[1]);
  assert.equal(q[2], []);
  assert.is(i[2], '0x');
  assert.is(q[3], '0x');
  assert.is(i[3], '0x00000000');
});

test('validators read back from BFT extraData in their given order, checksummed', () => {
  assert.equal(bftExtraDataValidators(qbftExtraData(four)), four.map((a) => getAddress(a)));
  assert.equal(bftExtraDataValidators(ibft2ExtraData(four)), four.map((a) => getAddress(a)));
});

test('Clique extraData is 32-byte vanity, the signers, then 65 zero bytes (EIP-225)', () => {
  const hex = cliqueExtraData(four.slice(0, 2));
  assert.is(hex, '0x' + zeros32 + four[0].slice(2) + four[1].slice(2) + '00'.repeat(65));
  assert.equal(cliqueExtraDataSigners(hex), four.slice(0, 2).map((a) => getAddress(a)));
});

test('a vanity is placed at the start of the 32 vanity bytes', () => {
  const hex = qbftExtraData(four.slice(0, 1), Uint8Array.from([0xab, 0xcd]));
  assert.ok(hex.startsWith('0xf83aa0abcd' + '00'.repeat(30)));
});

test('a vanity longer than 32 bytes is refused', () => {
  assert.throws(() => cliqueExtraData(four, new Uint8Array(33)), (e: unknown) => e instanceof ValidationError);
});

test.run();
