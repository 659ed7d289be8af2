import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { besuArgs, besuConfigToml, besuOptions, besuRpcApis, type BesuNodeSpec } from '../../../domain/evm/besuConfig.ts';
import { BESU_DOCUMENTED_OPTIONS } from '../../../domain/evm/besuOptions.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { assertGolden } from '../../helpers/golden.ts';

const BOOTNODE =
  'enode://79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8@127.0.0.1:30303';
const base = {
  networkId: 1337,
  dataPath: '/srv/lnm/nodes/7/data',
  genesisFile: '/srv/lnm/networks/3/genesis.json',
  nodePrivateKeyFile: '/srv/lnm/nodes/7/key',
};
const specs: Record<string, BesuNodeSpec> = {
  'validator-qbft': { ...base, role: 'validator', consensus: 'QBFT', bootnodes: [BOOTNODE] },
  'fullnode-ibft2': { ...base, role: 'fullnode', consensus: 'IBFT_2', p2pPort: 30304, rpcHttpPort: 8555, rpcWsPort: 8556, metricsPort: 9555, bootnodes: [BOOTNODE] },
  'bootnode-qbft': { ...base, role: 'bootnode', consensus: 'QBFT' },
  'validator-pow': { ...base, role: 'validator', consensus: 'POW', minerCoinbase: '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73' },
  // a priced network (genesis min_gas_price): besu refuses transactions below it
  'validator-ibft2-priced': { ...base, role: 'validator', consensus: 'IBFT_2', minGasPrice: 1_000_000_000n },
};

const goldenDir = new URL('../../golden/evm/', import.meta.url);
const golden = (name: string, actual: string) => assertGolden(`evm/${name}`, actual);

const sourceOptions = new Set(
  readFileSync(new URL('besuCliOptions-24.12.2.txt', goldenDir), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('--'))
    .map((l) => l.slice(2)),
);

for (const [name, spec] of Object.entries(specs)) {
  test(`besu config of a ${name} equals its golden TOML and command line`, () => {
    const options = besuOptions(spec);
    golden(`besu-${name}.toml`, besuConfigToml(options));
    golden(`besu-${name}.args.txt`, besuArgs(options).join('\n') + '\n');
  });

  test(`every option of a ${name} is a documented besu option present in the besu 24.12.2 sources`, () => {
    for (const key of Object.keys(besuOptions(spec))) {
      assert.ok(key in BESU_DOCUMENTED_OPTIONS, `${key} is not in the documented list`);
      assert.ok(sourceOptions.has(key), `--${key} is not a besu 24.12.2 option`);
    }
  });
}

test('every documented option in our list exists in the besu 24.12.2 sources', () => {
  const missing = Object.keys(BESU_DOCUMENTED_OPTIONS).filter((k) => !sourceOptions.has(k));
  assert.equal(missing, []);
});

test('validators get the consensus API, full sync and free gas; PoW has no consensus API', () => {
  const o = besuOptions(specs['validator-qbft']);
  assert.equal(o['rpc-http-api'], ['ETH', 'NET', 'WEB3', 'ADMIN', 'TXPOOL', 'QBFT']);
  assert.equal(o['rpc-ws-api'], o['rpc-http-api']);
  assert.is(o['sync-mode'], 'FULL');
  assert.is(o['min-gas-price'], 0n);
  assert.match(besuConfigToml(o), /^min-gas-price=0$/m);
  const priced = besuOptions(specs['validator-ibft2-priced']);
  assert.match(besuConfigToml(priced), /^min-gas-price=1000000000$/m);
  assert.ok(besuArgs(priced).includes('--min-gas-price=1000000000'));
  // the largest min_gas_price the genesis accepts stays a bare TOML integer that parses back
  const max = besuOptions({ ...specs['validator-ibft2-priced'], minGasPrice: (1n << 63n) - 1n });
  assert.is(parseToml(besuConfigToml(max), { integersAsBigInt: true })['min-gas-price'], (1n << 63n) - 1n);
  assert.equal(o.bootnodes, [BOOTNODE]);
  assert.equal(besuRpcApis('IBFT_2').at(-1), 'IBFT');
  assert.equal(besuRpcApis('CLIQUE').at(-1), 'CLIQUE');
  assert.not.ok(besuRpcApis('POW').includes('QBFT'));
});

test('a bootnode has P2P and discovery only: no RPC, no WebSocket, no metrics ports', () => {
  const o = besuOptions(specs['bootnode-qbft']);
  assert.is(o['p2p-port'], 30303);
  assert.is(o['discovery-enabled'], true);
  assert.is(o['rpc-http-enabled'], false);
  assert.is(o['rpc-ws-enabled'], false);
  assert.is(o['metrics-enabled'], false);
  assert.is(o['rpc-http-port'], undefined);
  assert.is(o['metrics-port'], undefined);
});

test('a node reached from other hosts listens on every interface and advertises its external address', () => {
  const o = besuOptions({ ...specs['validator-qbft'], host: '10.213.7.1', listenAll: true });
  assert.equal(
    { advertised: o['p2p-host'], p2p: o['p2p-interface'], rpc: o['rpc-http-host'], ws: o['rpc-ws-host'], metrics: o['metrics-host'] },
    { advertised: '10.213.7.1', p2p: '0.0.0.0', rpc: '0.0.0.0', ws: '0.0.0.0', metrics: '0.0.0.0' },
  );
  // JSON-RPC answers requests addressed to that address (besu checks the Host header).
  assert.equal(o['host-allowlist'], ['localhost', '127.0.0.1', '10.213.7.1']);
  // A node on loopback keeps every listener there, and writes no p2p-interface.
  const local = besuOptions(specs['validator-qbft']);
  assert.equal([local['p2p-host'], local['rpc-http-host'], local['p2p-interface']], ['127.0.0.1', '127.0.0.1', undefined]);
  assert.equal(local['host-allowlist'], ['localhost', '127.0.0.1']);
});

test('SPEC default ports: P2P 30303, RPC 8545, WebSocket 8546, metrics 9545', () => {
  const o = besuOptions(specs['validator-qbft']);
  assert.equal([o['p2p-port'], o['rpc-http-port'], o['rpc-ws-port'], o['metrics-port']], [30303, 8545, 8546, 9545]);
});

test('only a PoW validator mines', () => {
  assert.is(besuOptions(specs['validator-pow'])['miner-enabled'], true);
  assert.is(besuOptions(specs['validator-qbft'])['miner-enabled'], undefined);
  assert.is(besuOptions({ ...specs['validator-pow'], role: 'fullnode' })['miner-enabled'], undefined);
});

test('a malformed bootnode, a port clash, a bad port or a PoW miner without coinbase is refused', () => {
  const bad: Array<[BesuNodeSpec, RegExp]> = [
    [{ ...specs['validator-qbft'], bootnodes: ['enode://abc@127.0.0.1:30303'] }, /not an enode URL/],
    [{ ...specs['validator-qbft'], bootnodes: [BOOTNODE.replace('127.0.0.1', 'node1.example')] }, /not an IP address/],
    [{ ...specs['validator-qbft'], rpcWsPort: 8545 }, /port 8545 is already used for rpcHttpPort/],
    [{ ...specs['validator-qbft'], metricsPort: 70000 }, /70000 is not a port/],
    [{ ...specs['validator-pow'], minerCoinbase: undefined }, /needs a coinbase/],
  ];
  for (const [spec, pattern] of bad) {
    assert.throws(() => besuOptions(spec), (e: unknown) => e instanceof ValidationError && pattern.test((e as Error).message));
  }
});

test('the command line carries the same options as the TOML, lists comma-separated', () => {
  const options = besuOptions(specs['validator-qbft']);
  const args = besuArgs(options);
  assert.ok(args.includes('--rpc-http-api=ETH,NET,WEB3,ADMIN,TXPOOL,QBFT'));
  assert.ok(args.includes('--host-allowlist=localhost,127.0.0.1'));
  assert.is(args.length, Object.keys(options).length);
  assert.match(besuConfigToml(options), /^rpc-http-api=\["ETH", "NET", "WEB3", "ADMIN", "TXPOOL", "QBFT"\]$/m);
  assert.match(besuConfigToml(options), /^data-path="\/srv\/lnm\/nodes\/7\/data"$/m);
});

test('the TOML file parses back to exactly the option values', () => {
  for (const spec of Object.values(specs)) {
    const options = besuOptions(spec);
    // min-gas-price is a bigint here (wei); TOML reads it back as a number
    assert.equal(JSON.parse(JSON.stringify(parseToml(besuConfigToml(options)))), JSON.parse(JSON.stringify(options, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))));
  }
});

test.run();
