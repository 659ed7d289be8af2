// A real S3 server for the backup tests: s3rver on loopback over HTTPS, with a self-signed
// certificate for 127.0.0.1 made by openssl. (Over plain HTTP restic's streaming-signed chunked
// uploads are stored verbatim by s3rver and the repository is unreadable.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';

export interface S3Server {
  endpoint: string;
  port: number;
  /** PEM of the self-signed certificate (its own CA). */
  caPem: string;
  caFile: string;
  /** Where s3rver keeps the objects: <directory>/<bucket>/<key>._S3rver_object */
  directory: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): void;
}

export async function startS3Server(buckets: string[], port?: number): Promise<S3Server> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-s3-'));
  const keyFile = path.join(dir, 'key.pem');
  const caFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile, '-out', caFile, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const directory = path.join(dir, 'data');
  const p = port ?? (await freePort());
  let server: InstanceType<typeof S3rver> | null = null;
  const start = async () => {
    server = new S3rver({ port: p, address: '127.0.0.1', silent: true, directory, key: readFileSync(keyFile), cert: readFileSync(caFile), configureBuckets: buckets.map((name) => ({ name })) });
    await server.run();
  };
  await start();
  return {
    endpoint: `https://127.0.0.1:${p}`, port: p, caPem: readFileSync(caFile, 'utf8'), caFile, directory, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER',
    async stop() {
      await server?.close();
      server = null;
    },
    start,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
