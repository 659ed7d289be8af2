// enode URLs (devp2p node addresses): enode://<node id>@<ip>:<tcp port>[?discport=<udp port>],
// where the node id is the 64-byte uncompressed secp256k1 public key without its 0x04 prefix,
// in 128 hex digits. besu accepts IP addresses only (no host names) in bootnodes.
import { SigningKey, getBytes } from 'ethers';
import { ValidationError } from '../shared/errors.ts';

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-fA-F:.]+$/;

function base64ToBytes(b64: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const clean = b64.replace(/[^A-Za-z0-9+/]/g, '');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    value = (value << 6) | alphabet.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

/** Raw key bytes from hex (64, 65 or 33 bytes) or from a SubjectPublicKeyInfo PEM. */
function publicKeyBytes(publicKey: string | Uint8Array): Uint8Array {
  if (publicKey instanceof Uint8Array) return publicKey;
  const pem = publicKey.match(/-----BEGIN PUBLIC KEY-----([\s\S]+?)-----END PUBLIC KEY-----/);
  if (pem) {
    // The key is the BIT STRING at the end of the SPKI: 65 bytes uncompressed or 33 compressed.
    const der = base64ToBytes(pem[1]);
    if (der[der.length - 65] === 0x04) return der.slice(der.length - 65);
    return der.slice(der.length - 33);
  }
  const hex = publicKey.trim().replace(/^0x/, '');
  return getBytes('0x' + (hex.length === 128 ? '04' + hex : hex));
}

/** The 128-hex-digit node id of a secp256k1 public key; refuses points not on the curve. */
export function enodeId(publicKey: string | Uint8Array): string {
  let uncompressed: string;
  try {
    const bytes = publicKeyBytes(publicKey);
    // ethers would read 32 bytes as a private key; a public key is 33, 64 or 65 bytes.
    if (![33, 64, 65].includes(bytes.length)) throw new Error('length');
    uncompressed = SigningKey.computePublicKey(bytes, false);
  } catch {
    throw new ValidationError('The node public key is not a secp256k1 public key.', [
      { field: 'publicKey', message: 'not a secp256k1 public key (64/65-byte uncompressed, 33-byte compressed hex, or SPKI PEM)' },
    ]);
  }
  return uncompressed.slice(4);
}

function checkEndpoint(host: string, port: number, discport?: number): void {
  const issues = [];
  if (!IPV4.test(host) && !(host.includes(':') && IPV6.test(host))) issues.push({ field: 'host', message: `${JSON.stringify(host)} is not an IP address (besu bootnodes need one)` });
  for (const [field, p] of [['port', port], ['discport', discport]] as const) {
    if (p !== undefined && (!Number.isInteger(p) || p < 1 || p > 65535)) issues.push({ field, message: `${p} is not a port (1-65535)` });
  }
  if (issues.length) throw new ValidationError(`Invalid enode endpoint: ${issues.map((i) => i.message).join('; ')}.`, issues);
}

export function enodeUrl(publicKey: string | Uint8Array, host: string, port: number, discport?: number): string {
  checkEndpoint(host, port, discport);
  const h = host.includes(':') ? `[${host}]` : host;
  const disc = discport !== undefined && discport !== port ? `?discport=${discport}` : '';
  return `enode://${enodeId(publicKey)}@${h}:${port}${disc}`;
}

export interface ParsedEnode {
  nodeId: string;
  host: string;
  port: number;
  discport: number;
}

export function parseEnodeUrl(url: string): ParsedEnode {
  const m = /^enode:\/\/([0-9a-fA-F]{128})@(\[[0-9a-fA-F:.]+\]|[^:/?]+):(\d+)(?:\?discport=(\d+))?$/.exec(url.trim());
  if (!m) {
    throw new ValidationError(`${JSON.stringify(url)} is not an enode URL (enode://<128 hex>@<ip>:<port>).`, [{ field: 'bootnodes', message: 'not an enode URL' }]);
  }
  const host = m[2].replace(/^\[|\]$/g, '');
  const port = Number(m[3]);
  const discport = m[4] === undefined ? port : Number(m[4]);
  checkEndpoint(host, port, discport);
  enodeId(m[1]);
  return { nodeId: m[1].toLowerCase(), host, port, discport };
}
