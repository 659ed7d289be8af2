import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toUtf8Bytes } from 'ethers';
import { EMPTY_TRIE_ROOT, trieRoot } from '../../../domain/evm/merklePatriciaTrie.ts';

const entry = (k: string, v: string): [Uint8Array, Uint8Array] => [toUtf8Bytes(k), toUtf8Bytes(v)];

// Vectors from the Ethereum trie tests (trietest.json / trieanyorder.json).
test('a trie with no entries has the well-known empty root', () => {
  assert.is(trieRoot([]), EMPTY_TRIE_ROOT);
});

test('keys sharing prefixes give the reference root (extension, branch and leaf nodes)', () => {
  assert.is(
    trieRoot([entry('doe', 'reindeer'), entry('dog', 'puppy'), entry('dogglesworth', 'cat')]),
    '0x8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3',
  );
});

test('a key that is a prefix of another stores its value in the branch node', () => {
  assert.is(
    trieRoot([entry('do', 'verb'), entry('dog', 'puppy'), entry('doge', 'coin'), entry('horse', 'stallion')]),
    '0x5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84',
  );
});

test('the root does not depend on insertion order, and empty values are left out', () => {
  const a = trieRoot([entry('horse', 'stallion'), entry('doge', 'coin'), entry('do', 'verb'), entry('dog', 'puppy'), entry('cat', '')]);
  assert.is(a, '0x5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84');
});

test.run();
