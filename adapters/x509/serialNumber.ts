// Certificate serial numbers: 16 random bytes, positive and minimally DER-encoded, far inside
// RFC 5280's 20-octet limit and unpredictable (CA/B Forum asks for at least 64 random bits).
//   randomSerialNumber()        -> Buffer, the INTEGER content bytes
//   serialToHex(bytes)          -> upper-case hex without leading zero bytes (node:crypto's style)
//   serialFromHex(hex)          -> INTEGER content bytes for a positive serial written in hex
import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../domain/shared/errors.ts';

export function randomSerialNumber(): Buffer {
  const bytes = randomBytes(16);
  // Top bit clear keeps it positive; the next bit set keeps the first byte non-zero so the
  // encoding is minimal without a leading 0x00.
  bytes[0] = (bytes[0] & 0x7f) | 0x40;
  return bytes;
}

export function serialToHex(bytes: Buffer | ArrayBuffer): string {
  const b = Buffer.from(bytes as ArrayBuffer);
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i).toString('hex').toUpperCase();
}

export function serialFromHex(hex: string, field = 'serialNumber'): Buffer {
  const clean = hex.replace(/^0x/i, '').replace(/:/g, '');
  if (!/^[0-9a-fA-F]+$/.test(clean)) {
    throw new ValidationError(`Serial number ${JSON.stringify(hex)} is not hexadecimal.`, [{ field, message: 'not a hexadecimal serial number' }]);
  }
  let b = Buffer.from(clean.length % 2 ? '0' + clean : clean, 'hex');
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  b = b.subarray(i);
  // A set top bit would read as negative: prefix 0x00.
  return b[0] & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b;
}
