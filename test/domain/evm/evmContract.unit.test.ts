import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evmContract, type EvmContractCommand } from '../../../domain/evm/evmContract.ts';

const deployed: EvmContractCommand = {
  type: 'RecordContractDeployed', contractId: 1, networkId: 2, name: 'Store', address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', abi: [], bytecode: '0x6080', args: ['1'], constructorArgs: null,
  transactionHash: '0x' + 'ab'.repeat(32), blockNumber: 3, from: '0x' + '11'.repeat(20), nodeId: 4, at: '2026-01-01T00:00:00.000Z',
};

test('a deployed contract is recorded once, with a name users can write and an address', () => {
  const [e] = evmContract.decide(deployed, evmContract.initialState());
  assert.is(e.type, 'ContractDeployed');
  assert.is(e.data.name, 'Store');
  const s = evmContract.evolve(evmContract.initialState(), e);
  assert.throws(() => evmContract.decide(deployed, s), (x: any) => x.status === 409);
  for (const name of ['', 'bad name', '-lead', 'x'.repeat(129), 'a/b']) {
    assert.throws(() => evmContract.decide({ ...deployed, name }, evmContract.initialState()), (x: any) => x.status === 400 && x.message.includes('name'), name);
  }
  assert.throws(() => evmContract.decide({ ...deployed, address: '0x12' }, evmContract.initialState()), (x: any) => x.status === 400);
  assert.is(evmContract.decide({ ...deployed, name: 'token_v1.2-b' }, evmContract.initialState()).length, 1);
});

test.run();
