import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { anvilGenesisBlockHash, besuGenesisBlockHash } from '../../../domain/evm/genesisBlockHash.ts';
import { genesisStateRoot } from '../../../domain/evm/genesisStateRoot.ts';
import { EMPTY_TRIE_ROOT } from '../../../domain/evm/merklePatriciaTrie.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const vector = (name: string) => JSON.parse(readFileSync(new URL(`../../golden/evm/besuVectors/${name}`, import.meta.url), 'utf8'));

test('the state root of a balance-only alloc matches besu GenesisStateTest', () => {
  assert.is(genesisStateRoot(vector('genesis1.json').alloc), '0x92683e6af0f8a932e5fe08c870f2ae9d287e39d4518ec544b0be451f1035fd39');
});

test('an empty alloc has the empty-trie state root', () => {
  assert.is(genesisStateRoot({}), EMPTY_TRIE_ROOT);
});

const besuVectors: Array<[string, string, string]> = [
  ['genesisNonce.json', '0x36750291f1a8429aeb553a790dc2d149d04dbba0ca4cfc7fd5eb12d478117c9f', 'pre-London, header nonce and account nonces and code'],
  ['genesis3.json', '0xe7fd8db206dcaf066b7c97b8a42a0abc18653613560748557ab44868652a78b6', 'Clique extraData and a contract with storage'],
  ['genesis_shanghai.json', '0xfdc41f92053811b877be43e61cab6b0d9ee55501ae2443df0970c753747f12d8', 'London base fee and Shanghai withdrawalsRoot'],
  ['genesis_cancun.json', '0x87846b86c1026fa7d7be2da045716274231de1871065a320659c9b111287c688', 'Cancun blob fields and beacon root'],
  ['genesis_prague.json', '0x5d2d02fce02d1b7ca635ec91a4fe6f7aa36f9b3997ec4304e8c68d8f6f15d266', 'Prague requestsHash'],
  ['sepolia.json', '0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9', 'Sepolia (forks by timestamp after genesis)'],
  ['hoodi.json', '0xbbe312868b376a3001692a646dd2d7d1e4406380dfd86b98aa8a34d1557c971b', 'Hoodi (Cancun at genesis, deposit contract storage)'],
];
for (const [file, hash, what] of besuVectors) {
  test(`besu genesis hash of ${file} is the one besu computes (${what})`, () => {
    assert.is(besuGenesisBlockHash(vector(file)), hash);
  });
}

// zeroBaseFee (free gas) is a config item: besu's block 0 takes baseFeePerGas from the file, or its
// 1 gwei default, and never from zeroBaseFee (GenesisConfig.getGenesisBaseFeePerGas), so the flag
// alone leaves besu's own vector hash unchanged. A free-gas genesis built here therefore also
// writes baseFeePerGas 0x0, and that zero is hashed as the RLP integer 0 (the empty string), the
// encoding anvil's block 0 is checked against in test/adapters/evm/anvilGenesis.int.test.ts.
test('zeroBaseFee alone does not change the besu hash of genesis_shanghai.json (besu computes 0xfdc4...)', () => {
  const g = vector('genesis_shanghai.json');
  g.config.zeroBaseFee = true;
  assert.is(besuGenesisBlockHash(g), '0xfdc41f92053811b877be43e61cab6b0d9ee55501ae2443df0970c753747f12d8');
});

test('genesis_shanghai.json made free gas (zeroBaseFee, baseFeePerGas 0x0) has its own pinned hashes for both clients', () => {
  const g = vector('genesis_shanghai.json');
  g.config.zeroBaseFee = true;
  g.baseFeePerGas = '0x0';
  assert.is(besuGenesisBlockHash(g), '0xaaed5e1d4dc415e35e374f1504d68809d6e60eafa004eac15693a4dae33c01c2');
  assert.is(anvilGenesisBlockHash(g, 'shanghai'), '0xf8af3dd5ae990e08b56869e45e9720a22f74d9679f5684640c197f1ed38d74be');
  g.baseFeePerGas = '0x3b9aca00';
  assert.is(besuGenesisBlockHash(g), '0xfdc41f92053811b877be43e61cab6b0d9ee55501ae2443df0970c753747f12d8', 'only the base fee moved the hash');
});

test('changing one alloc balance changes the besu genesis hash but not the anvil one', () => {
  const g = vector('genesis_shanghai.json');
  const before = [besuGenesisBlockHash(g), anvilGenesisBlockHash(g, 'shanghai')];
  const first = Object.keys(g.alloc)[1];
  g.alloc[first].balance = '0x1';
  assert.is.not(besuGenesisBlockHash(g), before[0]);
  assert.is(anvilGenesisBlockHash(g, 'shanghai'), before[1]);
});

test('a genesis without gasLimit is refused with a ValidationError naming the field', () => {
  const g = vector('genesis1.json');
  delete g.gasLimit;
  try {
    besuGenesisBlockHash(g);
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.equal((err as ValidationError).details?.[0].field, 'gasLimit');
  }
});

test('a genesis with Amsterdam active at block 0 is refused rather than hashed wrongly', () => {
  const g = vector('genesis_prague.json');
  g.config.amsterdamTime = 0;
  assert.throws(() => besuGenesisBlockHash(g), (err: unknown) => err instanceof ValidationError && /Amsterdam/.test((err as Error).message));
});

test('besu and anvil agree only on a genesis without anything anvil ignores (no alloc, extraData, mixHash, difficulty)', () => {
  const bare = {
    config: { chainId: 9, londonBlock: 0, shanghaiTime: 0, cancunTime: 0 },
    timestamp: '0x0',
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    extraData: '0x',
    alloc: {},
  };
  assert.is(besuGenesisBlockHash(bare), anvilGenesisBlockHash(bare, 'cancun'));
  // With Shanghai only, anvil's header still carries blob fields that besu's does not.
  const shanghai = { ...bare, config: { chainId: 9, londonBlock: 0, shanghaiTime: 0 } };
  assert.is.not(besuGenesisBlockHash(shanghai), anvilGenesisBlockHash(shanghai, 'shanghai'));
  // Any alloc, or the extraData a BFT/Clique network needs, separates them.
  assert.is.not(besuGenesisBlockHash({ ...bare, alloc: { '0x0000000000000000000000000000000000000001': { balance: '1' } } }), anvilGenesisBlockHash(bare, 'cancun'));
  assert.is.not(besuGenesisBlockHash({ ...bare, extraData: '0x01' }), anvilGenesisBlockHash({ ...bare, extraData: '0x01' }, 'cancun'));
});

test.run();
