// Who sealed a Clique block (EIP-225), from the block alone: the last 65 bytes of extraData are
// the sealer's signature over the header without them (geth consensus/clique SealHash: the
// header fields in order, extraData less its seal, and baseFeePerGas from London on). A Clique
// block's `miner` field is no sealer: it names the address voted on (zero when none). Block 0
// carries no seal: null.
import { encodeRlp, getAddress, keccak256, recoverAddress, Signature, toBeArray, hexlify } from 'ethers';

const SEAL_LENGTH = 65;
const quantity = (v: string): string => hexlify(toBeArray(BigInt(v)));

export interface CliqueHeaderJson {
  parentHash: string; sha3Uncles: string; miner: string; stateRoot: string; transactionsRoot: string; receiptsRoot: string;
  logsBloom: string; difficulty: string; number: string; gasLimit: string; gasUsed: string; timestamp: string;
  extraData: string; mixHash: string; nonce: string; baseFeePerGas?: string | null;
}

/** The hash a Clique sealer signs (geth clique.SealHash). */
export function cliqueSealHash(h: CliqueHeaderJson): string {
  const extra = h.extraData.replace(/^0x/, '');
  const fields = [
    h.parentHash, h.sha3Uncles, h.miner, h.stateRoot, h.transactionsRoot, h.receiptsRoot, h.logsBloom,
    quantity(h.difficulty), quantity(h.number), quantity(h.gasLimit), quantity(h.gasUsed), quantity(h.timestamp),
    '0x' + extra.slice(0, extra.length - SEAL_LENGTH * 2), h.mixHash, h.nonce,
  ];
  if (h.baseFeePerGas !== undefined && h.baseFeePerGas !== null) fields.push(quantity(h.baseFeePerGas));
  return keccak256(encodeRlp(fields));
}

/** The sealer's address, or null for a block without a valid seal (block 0, or not Clique). */
export function cliqueSealer(h: CliqueHeaderJson): string | null {
  const extra = (h.extraData ?? '').replace(/^0x/, '');
  if (BigInt(h.number) === 0n || extra.length < SEAL_LENGTH * 2) return null;
  const seal = extra.slice(extra.length - SEAL_LENGTH * 2);
  const v = parseInt(seal.slice(128, 130), 16);
  if (v > 1) return null;
  try {
    const sig = Signature.from({ r: '0x' + seal.slice(0, 64), s: '0x' + seal.slice(64, 128), v: 27 + v });
    return getAddress(recoverAddress(cliqueSealHash(h), sig));
  } catch {
    return null;
  }
}
