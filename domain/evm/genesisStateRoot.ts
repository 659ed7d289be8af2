// State root of a genesis `alloc`: the account trie keyed by keccak(address), each account
// RLP [nonce, balance, storageRoot, codeHash]; each storage trie keyed by keccak(slot) with the
// RLP of the value without leading zeros (zero values are absent from the trie).
import { encodeRlp, getBytes, hexlify, keccak256, toBeArray } from 'ethers';
import { genesisBytes, genesisField, genesisFixedBytes, genesisQuantity } from './genesisJson.ts';
import { trieRoot } from './merklePatriciaTrie.ts';

const EMPTY_CODE_HASH = keccak256(new Uint8Array());

function rlpQuantity(n: bigint): Uint8Array {
  return toBeArray(n); // minimal big-endian; zero is the empty byte string
}

function storageRoot(storage: unknown, account: string): string {
  if (storage === undefined || storage === null) return trieRoot([]);
  const entries: Array<[Uint8Array, Uint8Array]> = [];
  for (const [slot, value] of Object.entries(storage as Record<string, unknown>)) {
    const key = genesisFixedBytes(slot, `alloc.${account}.storage`, 32);
    // Storage words are hex, with or without 0x, like the slots (besu UInt256.fromHexString).
    const word = BigInt(hexlify(genesisFixedBytes(value, `alloc.${account}.storage.${slot}`, 32)));
    if (word === 0n) continue;
    entries.push([getBytes(keccak256(key)), getBytes(encodeRlp(rlpQuantity(word)))]);
  }
  return trieRoot(entries);
}

export function genesisStateRoot(alloc: unknown): string {
  const entries: Array<[Uint8Array, Uint8Array]> = [];
  for (const [address, account] of Object.entries((alloc ?? {}) as Record<string, unknown>)) {
    const addressBytes = genesisFixedBytes(address, 'alloc', 20);
    const balance = genesisQuantity(genesisField(account, 'balance') ?? '0', `alloc.${address}.balance`);
    const nonce = genesisQuantity(genesisField(account, 'nonce') ?? '0', `alloc.${address}.nonce`);
    const code = genesisBytes(genesisField(account, 'code'), `alloc.${address}.code`);
    const body = encodeRlp([
      rlpQuantity(nonce),
      rlpQuantity(balance),
      storageRoot(genesisField(account, 'storage'), address),
      code.length ? keccak256(code) : EMPTY_CODE_HASH,
    ]);
    entries.push([getBytes(keccak256(addressBytes)), getBytes(body)]);
  }
  return trieRoot(entries);
}
