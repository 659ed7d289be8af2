// Reading a genesis file the way the clients do: keys are case-insensitive (besu lower-cases
// them, so `mixHash`, `mixhash` and `chainID` all work) and numbers come as hex or decimal strings.
import { ValidationError } from '../shared/errors.ts';

export type GenesisJson = Record<string, unknown>;

/** Case-insensitive field lookup. */
export function genesisField(obj: unknown, name: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined;
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) if (k.toLowerCase() === wanted) return v;
  return undefined;
}

function invalid(field: string, message: string): ValidationError {
  return new ValidationError(`Genesis field ${field} ${message}`, [{ field, message }]);
}

/** A quantity: number, `0x` hex or decimal string. `hexOnly` follows besu for fields it reads as hex. */
export function genesisQuantity(value: unknown, field: string, opts: { hexOnly?: boolean } = {}): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string') {
    const s = value.trim().toLowerCase();
    if (/^0x[0-9a-f]*$/.test(s)) return s === '0x' ? 0n : BigInt(s);
    if (opts.hexOnly && /^[0-9a-f]+$/.test(s)) return BigInt('0x' + s);
    if (/^[0-9]+$/.test(s)) return BigInt(s);
  }
  throw invalid(field, `must be a non-negative number (hex or decimal string), got ${JSON.stringify(value)}.`);
}

/** Bytes given as hex; an empty string or missing value is empty bytes. */
export function genesisBytes(value: unknown, field: string): Uint8Array {
  if (value === undefined || value === null || value === '') return new Uint8Array();
  if (typeof value === 'string') {
    let s = value.trim().toLowerCase();
    if (s.startsWith('0x')) s = s.slice(2);
    if (/^[0-9a-f]*$/.test(s)) {
      if (s.length % 2 === 1) s = '0' + s;
      return Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));
    }
  }
  throw invalid(field, `must be a hex string, got ${JSON.stringify(value)}.`);
}

/** Fixed-size bytes, left-padded like besu's lenient hash parsing. */
export function genesisFixedBytes(value: unknown, field: string, size: number): Uint8Array {
  const bytes = genesisBytes(value, field);
  if (bytes.length > size) throw invalid(field, `must be at most ${size} bytes.`);
  const out = new Uint8Array(size);
  out.set(bytes, size - bytes.length);
  return out;
}
