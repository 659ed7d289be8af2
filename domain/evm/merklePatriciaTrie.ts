// Root hash of an Ethereum Merkle Patricia trie built from a complete set of key/value pairs
// (Yellow Paper, appendix D). Only the root is needed (genesis state and storage roots), so the
// trie is built once, bottom-up, from sorted keys instead of by repeated inserts.
import { encodeRlp, keccak256, hexlify, type RlpStructuredData } from 'ethers';

/** keccak256(rlp('')): the root of a trie with no entries. */
export const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

type Nibbles = number[];
interface Item {
  key: Nibbles;
  value: string;
}

function toNibbles(bytes: Uint8Array): Nibbles {
  const out: Nibbles = [];
  for (const b of bytes) out.push(b >> 4, b & 0x0f);
  return out;
}

/** Hex-prefix encoding of a nibble path; the flag tells leaves from extensions and odd from even lengths. */
function hexPrefix(path: Nibbles, leaf: boolean): string {
  const odd = path.length % 2 === 1;
  const flag = (leaf ? 2 : 0) + (odd ? 1 : 0);
  const nibbles = odd ? [flag, ...path] : [flag, 0, ...path];
  const bytes = new Uint8Array(nibbles.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (nibbles[2 * i] << 4) | nibbles[2 * i + 1];
  return hexlify(bytes);
}

/** A child is embedded when its encoding is shorter than 32 bytes, otherwise referenced by hash. */
function reference(node: RlpStructuredData): RlpStructuredData {
  const encoded = encodeRlp(node);
  return (encoded.length - 2) / 2 < 32 ? node : keccak256(encoded);
}

function commonPrefixLength(items: Item[], depth: number): number {
  let n = 0;
  for (;;) {
    const first = items[0].key[depth + n];
    if (first === undefined) return n;
    for (const item of items) if (item.key[depth + n] !== first) return n;
    n++;
  }
}

function buildNode(items: Item[], depth: number): RlpStructuredData {
  if (items.length === 1) return [hexPrefix(items[0].key.slice(depth), true), items[0].value];
  const shared = commonPrefixLength(items, depth);
  if (shared > 0) {
    const path = items[0].key.slice(depth, depth + shared);
    return [hexPrefix(path, false), reference(buildNode(items, depth + shared))];
  }
  const branch: RlpStructuredData[] = new Array(17).fill('0x');
  const groups: Item[][] = Array.from({ length: 16 }, () => []);
  for (const item of items) {
    if (item.key.length === depth) branch[16] = item.value;
    else groups[item.key[depth]].push(item);
  }
  groups.forEach((group, nibble) => {
    if (group.length > 0) branch[nibble] = reference(buildNode(group, depth + 1));
  });
  return branch;
}

/**
 * Root of the trie holding `entries` (key bytes -> value bytes, the value already RLP-encoded where
 * the caller's trie wants that). Empty values are skipped, as a trie cannot hold them.
 */
export function trieRoot(entries: Iterable<[Uint8Array, Uint8Array]>): string {
  const byKey = new Map<string, Item>();
  for (const [key, value] of entries) {
    if (value.length === 0) continue;
    byKey.set(hexlify(key), { key: toNibbles(key), value: hexlify(value) });
  }
  if (byKey.size === 0) return EMPTY_TRIE_ROOT;
  return keccak256(encodeRlp(buildNode([...byKey.values()], 0)));
}
