// What the besu stand-in checks before it "starts", as besu 24.12.2 does: every command line
// option and every TOML key must be a besu option (the option list extracted from the besu
// sources, test/golden/evm/besuCliOptions-24.12.2.txt), the config file must parse, the genesis
// file must be JSON with a chainId and a consensus section besu knows, and the node key file
// must hold 32 bytes of hex (besu makes one when the file is missing, and so does this).
// Messages follow besu's ("Unknown option: '--x'", "Unknown options in TOML configuration file").
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { decodeRlp, getAddress, hexlify, SigningKey } from 'ethers';
import { parse as parseToml } from 'smol-toml';

export class StandinStartError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

export type OptionValue = string | number | boolean | string[];

const OPTION_LIST = new URL('../golden/evm/besuCliOptions-24.12.2.txt', import.meta.url);
export const BESU_OPTIONS: ReadonlySet<string> = new Set(
  readFileSync(OPTION_LIST, 'utf8').split('\n').filter((l) => l.startsWith('--')).map((l) => l.slice(2).trim()),
);

/** picocli's reading of besu's command line: --name=value, --name value, or a bare boolean --name. */
export function parseBesuArgs(argv: string[]): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new StandinStartError(`Unmatched argument at index ${i}: '${arg}'`, 2);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!BESU_OPTIONS.has(name)) throw new StandinStartError(`Unknown option: '${arg}'`, 2);
    if (eq >= 0) out[name] = arg.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out[name] = argv[++i];
    else out[name] = true;
  }
  return out;
}

export function readTomlConfig(file: string): Record<string, OptionValue> {
  let parsed: Record<string, unknown>;
  try {
    parsed = parseToml(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new StandinStartError(`Unable to read TOML configuration, file not found or invalid: ${file} (${(err as Error).message.split('\n')[0]})`);
  }
  const unknown = Object.keys(parsed).filter((k) => !BESU_OPTIONS.has(k));
  if (unknown.length) throw new StandinStartError(`Unknown options in TOML configuration file: ${unknown.join(', ')}`);
  for (const [k, v] of Object.entries(parsed)) {
    const ok = typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
    if (!ok) throw new StandinStartError(`Invalid value for option '--${k}' in TOML configuration file`);
  }
  return parsed as Record<string, OptionValue>;
}

export interface StandinConfig {
  options: Record<string, OptionValue>;
  bool(name: string, dflt: boolean): boolean;
  int(name: string, dflt: number): number;
  str(name: string, dflt: string): string;
  list(name: string, dflt: string[]): string[];
}

export function standinConfig(argv: string[]): StandinConfig {
  const cli = parseBesuArgs(argv);
  const fromFile = typeof cli['config-file'] === 'string' ? readTomlConfig(cli['config-file']) : {};
  const options = { ...fromFile, ...cli }; // the command line wins, as in besu
  const raw = (name: string) => options[name];
  return {
    options,
    bool(name, dflt) {
      const v = raw(name);
      if (v === undefined) return dflt;
      if (v === true || v === 'true') return true;
      if (v === false || v === 'false') return false;
      throw new StandinStartError(`Invalid value for option '--${name}': '${String(v)}' is not a boolean`, 2);
    },
    int(name, dflt) {
      const v = raw(name);
      if (v === undefined) return dflt;
      const n = typeof v === 'number' ? v : Number(v);
      if (!Number.isInteger(n)) throw new StandinStartError(`Invalid value for option '--${name}': '${String(v)}' is not an int`, 2);
      if (name.endsWith('-port') && (n < 0 || n > 65535)) throw new StandinStartError(`Invalid value for option '--${name}': ${n} is not a port`, 2);
      return n;
    },
    str(name, dflt) {
      const v = raw(name);
      return v === undefined ? dflt : String(v);
    },
    list(name, dflt) {
      const v = raw(name);
      if (v === undefined) return dflt;
      if (Array.isArray(v)) return v;
      return String(v).split(',').map((s) => s.trim()).filter(Boolean);
    },
  };
}

export type StandinConsensus = 'qbft' | 'ibft2' | 'clique' | 'ethash';

export interface StandinGenesis {
  json: Record<string, unknown>;
  chainId: number;
  consensus: StandinConsensus;
  /** BFT validators as encoded in extraData (besu's BftExtraData), decoded here independently. */
  validators: string[];
}

/** Clique extraData (EIP-225): 32 bytes vanity, 20 bytes per signer, 65 bytes of seal. */
function cliqueSigners(extraData: string): string[] {
  const hexBody = extraData.replace(/^0x/, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(hexBody)) throw new StandinStartError('Invalid genesis: extraData is not hex');
  const bytes = hexBody.length / 2;
  if (bytes < 97 || (bytes - 97) % 20 !== 0) throw new StandinStartError(`Invalid genesis: Clique extraData of ${bytes} bytes is not 32 (vanity) + 20 x signers + 65 (seal)`);
  const signers = hexBody.slice(64, hexBody.length - 130);
  if (!signers.length) throw new StandinStartError('Invalid genesis: Clique extraData names no signer');
  return signers.match(/.{40}/g)!.map((a) => '0x' + a.toLowerCase());
}

function bftValidators(extraData: string): string[] {
  let decoded: unknown;
  try {
    decoded = decodeRlp(extraData);
  } catch (err) {
    throw new StandinStartError(`Invalid genesis: extraData is not RLP (${(err as Error).message})`);
  }
  // [vanity (32 bytes), [validators], vote, round, seals]
  if (!Array.isArray(decoded) || decoded.length < 2 || !Array.isArray(decoded[1])) throw new StandinStartError('Invalid genesis: BFT extraData is not [vanity, validators, ...]');
  if (typeof decoded[0] !== 'string' || (decoded[0].length - 2) / 2 !== 32) throw new StandinStartError('Invalid genesis: BFT extraData vanity is not 32 bytes');
  return (decoded[1] as unknown[]).map((v) => {
    if (typeof v !== 'string' || v.length !== 42) throw new StandinStartError('Invalid genesis: a BFT validator is not 20 bytes');
    return getAddress(v);
  });
}

export function readGenesis(file: string): StandinGenesis {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new StandinStartError(`Unable to load genesis file ${file}: ${(err as Error).message}`);
  }
  const config = json.config as Record<string, unknown> | undefined;
  if (!config || typeof config !== 'object') throw new StandinStartError('Invalid genesis: no config section');
  const chainId = Number(config.chainId);
  if (!Number.isInteger(chainId) || chainId <= 0) throw new StandinStartError('Invalid genesis: config.chainId is missing');
  const found = (['qbft', 'ibft2', 'clique', 'ethash'] as const).filter((c) => c in config);
  if (found.length !== 1) throw new StandinStartError(`Invalid genesis: expected one of config.qbft, ibft2, clique, ethash, found ${found.join(', ') || 'none'}`);
  const consensus = found[0];
  const extraData = String(json.extraData ?? '0x');
  return { json, chainId, consensus, validators: consensus === 'qbft' || consensus === 'ibft2' ? bftValidators(extraData) : consensus === 'clique' ? cliqueSigners(extraData) : [] };
}

const N = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');

/** besu's KeyPairUtil: read the key file (hex, 0x optional), or make and write one. */
export function loadNodeKey(file: string, log: (line: string) => void): SigningKey {
  if (!existsSync(file)) {
    const key = hexlify(randomBytes(32));
    writeFileSync(file, key, { mode: 0o600 });
    log(`Generated new secp256k1 key pair, public key written to ${file}`);
    return new SigningKey(key);
  }
  const text = readFileSync(file, 'utf8').trim();
  const m = /^(0x)?([0-9a-fA-F]{64})$/.exec(text);
  if (!m) throw new StandinStartError(`Supplied file does not contain valid keyPair pair: ${file}`);
  const k = BigInt('0x' + m[2]);
  if (k === 0n || k >= N) throw new StandinStartError(`Supplied file does not contain valid keyPair pair: ${file}`);
  return new SigningKey('0x' + m[2]);
}

export function ensureDataPath(dir: string): void {
  mkdirSync(dir, { recursive: true });
}
