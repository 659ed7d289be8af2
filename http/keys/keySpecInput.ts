// Reading the algorithm of a key from a request: ECDSA or EC, RSA, Ed25519 (any case), with
// the curve (EC) or key size (RSA). 400 naming what is accepted.
import type { EcCurve, KeySpec } from '../../domain/keys/keyProvider.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

const curves: EcCurve[] = ['P-256', 'P-384', 'P-521', 'secp256k1'];
const curveAliases: Record<string, EcCurve> = { 'P-256': 'P-256', P256: 'P-256', PRIME256V1: 'P-256', SECP256R1: 'P-256', 'P-384': 'P-384', P384: 'P-384', SECP384R1: 'P-384', 'P-521': 'P-521', P521: 'P-521', SECP521R1: 'P-521', SECP256K1: 'secp256k1' };

export function keySpecFromInput(body: { algorithm?: string; curve?: string; keySize?: number }): KeySpec {
  const alg = (body.algorithm ?? 'ECDSA').toUpperCase();
  if (alg === 'EC' || alg === 'ECDSA') {
    const curve = curveAliases[(body.curve ?? 'P-256').toUpperCase()];
    if (!curve) throw new ValidationError(`Unknown curve ${JSON.stringify(body.curve)}; use one of ${curves.join(', ')}.`, [{ field: 'curve', message: `must be one of ${curves.join(', ')}` }]);
    return { algorithm: 'EC', curve };
  }
  if (alg === 'RSA') {
    const keySize = body.keySize ?? 2048;
    if (keySize !== 2048 && keySize !== 4096) throw new ValidationError('RSA keys are 2048 or 4096 bits.', [{ field: 'keySize', message: 'must be 2048 or 4096' }]);
    if (body.curve) throw new ValidationError('RSA keys have no curve.', [{ field: 'curve', message: 'only for ECDSA keys' }]);
    return { algorithm: 'RSA', keySize };
  }
  if (alg === 'ED25519') return { algorithm: 'ED25519' };
  throw new ValidationError(`Unknown algorithm ${JSON.stringify(body.algorithm)}; use ECDSA (or EC), RSA or Ed25519.`, [{ field: 'algorithm', message: 'must be ECDSA, EC, RSA or Ed25519' }]);
}

/** The API's spelling of a spec. */
export function algorithmLabel(algorithm: string): string {
  return algorithm === 'EC' ? 'ECDSA' : algorithm === 'ED25519' ? 'Ed25519' : algorithm;
}
