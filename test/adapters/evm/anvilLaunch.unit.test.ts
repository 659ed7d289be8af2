import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { createEvmGenesis } from '../../../domain/evm/evmGenesis.ts';
import { anvilBinaryPath, anvilBootstrapCommand, anvilRunCommand, anvilSpecFromGenesis } from '../../../adapters/evm/anvilLaunch.ts';

const { file, settings } = createEvmGenesis({
  chain_id: 1001,
  consensus: 'QBFT',
  block_time: 7,
  gas_limit: '0x2faf080',
  validators: ['0xc98adee2e27b436582259500797fa6633f88367f'],
});
const spec = anvilSpecFromGenesis(file, settings, { nodeDir: '/srv/lnm/nodes/9', genesisPath: '/srv/lnm/networks/2/genesis.json', rpcPort: 18545, anvilPath: '/opt/anvil' });

const flag = (args: string[], name: string) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};

test('the running node loads and saves its chain under the node directory and mines every block period', () => {
  const { command, args } = anvilRunCommand(spec);
  assert.is(command, '/opt/anvil');
  assert.is(flag(args, '--state'), '/srv/lnm/nodes/9/anvil-state.json');
  assert.is(flag(args, '--block-time'), '7');
  assert.not.ok(args.includes('--init'), 'anvil refuses --init together with --state');
});

test('both steps listen on 127.0.0.1 with the genesis chain id, hardfork and gas limit, and no dev accounts', () => {
  for (const { args } of [anvilRunCommand(spec), anvilBootstrapCommand(spec)]) {
    assert.is(flag(args, '--host'), '127.0.0.1');
    assert.is(flag(args, '--port'), '18545');
    assert.is(flag(args, '--chain-id'), '1001');
    assert.is(flag(args, '--hardfork'), 'shanghai');
    assert.is(flag(args, '--gas-limit'), '50000000');
    assert.is(flag(args, '--accounts'), '0');
  }
});

test('the bootstrap builds block 0 from the genesis file and mines nothing', () => {
  const { args } = anvilBootstrapCommand(spec);
  assert.is(flag(args, '--init'), '/srv/lnm/networks/2/genesis.json');
  assert.ok(args.includes('--no-mining'));
  assert.not.ok(args.includes('--state'));
});

test('the anvil binary shipped in node_modules is found for this platform', () => {
  assert.ok(existsSync(anvilBinaryPath()), anvilBinaryPath());
});

test.run();
