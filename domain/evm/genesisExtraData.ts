// The genesis extraData that names the initial validators, one encoder per consensus, byte for
// byte as besu expects it:
//  - QBFT (besu QbftExtraDataCodec): RLP [vanity(32), [validators], vote, round, [seals]] where
//    "no vote" is the EMPTY LIST (0xc0) and round is a scalar (round 0 -> 0x80).
//  - IBFT 2.0 (besu IbftExtraDataCodec): same list, but "no vote" is the empty byte string (0x80)
//    and round is written as exactly 4 bytes (0x8400000000).
//  - Clique (EIP-225): 32-byte vanity ++ signer addresses ++ 65 zero bytes for the seal.
// Vectors in test/domain/networks/genesisExtraData.unit.test.ts come from besu's docs and tests.
import { concat, decodeRlp, encodeRlp, getAddress, hexlify } from 'ethers';
import { ValidationError } from '../shared/errors.ts';

const VANITY_LENGTH = 32;
const CLIQUE_SEAL_LENGTH = 65;

function vanityBytes(vanity: Uint8Array | undefined): Uint8Array {
  const out = new Uint8Array(VANITY_LENGTH);
  if (!vanity) return out;
  if (vanity.length > VANITY_LENGTH) {
    throw new ValidationError(`extradata may be at most ${VANITY_LENGTH} bytes (it becomes the vanity).`, [
      { field: 'extradata', message: `at most ${VANITY_LENGTH} bytes` },
    ]);
  }
  out.set(vanity);
  return out;
}

const lower = (addresses: string[]) => addresses.map((a) => getAddress(a).toLowerCase());

export function qbftExtraData(validators: string[], vanity?: Uint8Array): string {
  return encodeRlp([hexlify(vanityBytes(vanity)), lower(validators), [], '0x', []]);
}

export function ibft2ExtraData(validators: string[], vanity?: Uint8Array): string {
  return encodeRlp([hexlify(vanityBytes(vanity)), lower(validators), '0x', '0x00000000', []]);
}

export function cliqueExtraData(signers: string[], vanity?: Uint8Array): string {
  return hexlify(concat([vanityBytes(vanity), ...lower(signers), new Uint8Array(CLIQUE_SEAL_LENGTH)]));
}

/** The validators a BFT (QBFT or IBFT 2.0) extraData names, as checksummed addresses. */
export function bftExtraDataValidators(extraData: string): string[] {
  const decoded = decodeRlp(extraData);
  if (!Array.isArray(decoded) || decoded.length < 3 || !Array.isArray(decoded[1])) {
    throw new ValidationError('extraData is not a BFT extraData list.', [{ field: 'extraData', message: 'not a BFT extraData list' }]);
  }
  return decoded[1].map((v) => getAddress(v as string));
}

/** The signers a Clique extraData names, as checksummed addresses. */
export function cliqueExtraDataSigners(extraData: string): string[] {
  const hex = extraData.replace(/^0x/, '');
  const body = hex.slice(VANITY_LENGTH * 2, hex.length - CLIQUE_SEAL_LENGTH * 2);
  if (hex.length < (VANITY_LENGTH + CLIQUE_SEAL_LENGTH) * 2 || body.length % 40 !== 0) {
    throw new ValidationError('extraData is not a Clique extraData.', [{ field: 'extraData', message: 'not a Clique extraData' }]);
  }
  return (body.match(/.{40}/g) ?? []).map((a) => getAddress('0x' + a));
}
