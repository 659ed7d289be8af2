// The chaincode-as-a-service package the peers install, and the chaincode's own files.
//   ccaasPackageOf(label, address, tls) -> { bytes, packageId } a .tar.gz with metadata.json (type
//       "ccaas") and code.tar.gz holding connection.json (mutual TLS with tls); the same input always gives the same
//       bytes (mtime 0), so the package id (label:sha256) is stable and installs are idempotent.
//   chaincodeFiles(files)          -> the files a chaincode server runs: TypeScript transpiled to
//       CommonJS (esbuild), everything else as given.
//   untarGz(bytes)                 -> files of a .tar.gz given as a chaincode's source.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { transformSync } from 'esbuild';
import { ValidationError } from '../../domain/shared/errors.ts';
import type { ChaincodeTlsMaterial } from '../../domain/consortium/consortiumPorts.ts';

export interface SourceFile {
  path: string;
  content: string;
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function tarEntry(name: string, content: Uint8Array): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write(octal(0o644, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii');
  header.write(octal(0, 8), 116, 'ascii');
  header.write(octal(content.length, 12), 124, 'ascii');
  header.write(octal(0, 12), 136, 'ascii');
  header.write('        ', 148, 'ascii');
  header.write('0', 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  let sum = 0;
  for (const b of header) sum += b;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([header, Buffer.from(content), padding]);
}

export function tarGz(entries: { name: string; content: Uint8Array }[]): Buffer {
  return gzipSync(Buffer.concat([...entries.map((e) => tarEntry(e.name, e.content)), Buffer.alloc(1024)]));
}

export function untarGz(bytes: Uint8Array): SourceFile[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes);
  } catch {
    throw new ValidationError('The chaincode archive is not a .tar.gz.', [{ field: 'source.archive', message: 'not gzip' }]);
  }
  const files: SourceFile[] = [];
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, len: number) => header.subarray(from, from + len).toString('utf8').replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    if (!Number.isFinite(size)) throw new ValidationError('The chaincode archive is not a tar file.', [{ field: 'source.archive', message: 'bad tar header' }]);
    if (type === '0') files.push({ path: name.replace(/^\.\//, '').replace(/^package\//, ''), content: tar.subarray(at + 512, at + 512 + size).toString('utf8') });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/**
 * connection.json as Fabric's ccaas builder reads it: with tls, mutual TLS (root_cert: the CA of
 * the server's certificate; client_cert/client_key: what the peer presents), PEM strings. Without,
 * the plain-text form of records made before TLS existed (the same bytes, the same package id).
 */
export function ccaasPackageOf(label: string, address: string, tls: ChaincodeTlsMaterial | null = null): { bytes: Buffer; packageId: string } {
  const connection = JSON.stringify(
    tls
      ? { address, dial_timeout: '10s', tls_required: true, client_auth_required: true, root_cert: tls.caCertPem, client_cert: tls.clientCertPem, client_key: tls.clientKeyPem }
      : { address, dial_timeout: '10s', tls_required: false },
  );
  const code = tarGz([{ name: 'connection.json', content: Buffer.from(connection) }]);
  const metadata = JSON.stringify({ type: 'ccaas', label });
  const bytes = tarGz([
    { name: 'metadata.json', content: Buffer.from(metadata) },
    { name: 'code.tar.gz', content: code },
  ]);
  return { bytes, packageId: `${label}:${createHash('sha256').update(bytes).digest('hex')}` };
}

/** What a chaincode server's directory holds: .ts files as CommonJS .js next to the rest. */
export function chaincodeFiles(files: SourceFile[]): SourceFile[] {
  return files.map((f) => {
    if (!/\.ts$/.test(f.path) || f.path.endsWith('.d.ts')) return f;
    try {
      const out = transformSync(f.content, { loader: 'ts', format: 'cjs', target: 'node20', sourcefile: f.path });
      return { path: f.path.replace(/\.ts$/, '.js'), content: out.code };
    } catch (err) {
      throw new ValidationError(`The chaincode file ${f.path} does not compile: ${(err as Error).message.split('\n').slice(0, 3).join(' ')}`, [{ field: 'source.files', message: `${f.path} does not compile` }]);
    }
  });
}
