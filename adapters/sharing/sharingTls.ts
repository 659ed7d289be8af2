// The sharing listener's TLS: a self-signed certificate of this instance (P-256), made once and
// kept under DATA_DIR/sharing (the key file 0600, like the nodes' TLS keys), pinned by peers
// through the invitation. Calls to a peer trust only the certificate pinned for it.
import { generateKeyPairSync, createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { PinnedResponse } from '../../domain/sharing/sharingPorts.ts';
import { createSelfSignedCa } from '../x509/certificateBuilder.ts';
import { privateKeySigner } from '../x509/certificateSigner.ts';

export interface InstanceTls {
  keyPem: string;
  certificatePem: string;
  fingerprint: string;
}

export const fingerprintOf = (certificatePem: string) => new X509Certificate(certificatePem).fingerprint256;

export async function loadOrCreateInstanceTls(dataDir: string, instanceId: string, hosts: string[], now: Date): Promise<InstanceTls> {
  const dir = path.join(dataDir, 'sharing');
  const keyFile = path.join(dir, 'tls.key');
  const certFile = path.join(dir, 'tls.crt');
  if (existsSync(keyFile) && existsSync(certFile)) {
    const certificatePem = readFileSync(certFile, 'utf8');
    return { keyPem: readFileSync(keyFile, 'utf8'), certificatePem, fingerprint: fingerprintOf(certificatePem) };
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ips = hosts.filter((h) => /^[0-9.]+$|:/.test(h));
  const names = hosts.filter((h) => !ips.includes(h));
  const cert = await createSelfSignedCa({
    subject: { commonName: `lnm-sharing-${instanceId}`.slice(0, 64), organization: 'ledger network manager' },
    notBefore: new Date(now.getTime() - 5 * 60_000),
    notAfter: new Date(now.getTime() + 10 * 365 * 86_400_000),
    dnsNames: names, ipAddresses: ips,
    keyUsages: ['digitalSignature', 'keyCertSign'],
    extendedKeyUsages: ['serverAuth', 'clientAuth'],
  }, privateKeySigner(createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }))));
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(keyFile, keyPem, { mode: 0o600 });
  writeFileSync(certFile, cert.pem);
  return { keyPem, certificatePem: cert.pem, fingerprint: fingerprintOf(cert.pem) };
}

/** The most of a peer's answer read (its metadata with block 0 of each shared channel); more is an error. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * POST JSON to a peer's sharing listener. The pinned certificate is the only trust anchor, and
 * the certificate presented must be that one exactly (fingerprint), whatever name it carries.
 * Redirects are not followed; the answer is bounded in size (MAX_ANSWER_BYTES) and the whole
 * exchange in time (timeoutMs), so a peer that trickles or never ends its answer cannot hold it.
 */
export function postPinned(url: string, certificatePem: string, p: string, body: unknown, bearer: string | null, timeoutMs = 15_000): Promise<PinnedResponse> {
  const pinned = fingerprintOf(certificatePem);
  const target = new URL(p, url);
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = https.request(target, {
      method: 'POST',
      ca: [certificatePem],
      checkServerIdentity: (_host, cert) => (cert.fingerprint256 === pinned ? undefined : new Error(`the peer presented certificate ${cert.fingerprint256}, not the pinned ${pinned}`)),
      headers: { 'content-type': 'application/json', 'content-length': data.length, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      timeout: timeoutMs,
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_ANSWER_BYTES) {
          req.destroy(new Error(`the answer of ${target.origin} is larger than ${MAX_ANSWER_BYTES} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => {
        clearTimeout(deadline);
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = null;
        try { parsed = text ? JSON.parse(text) : null; } catch { parsed = { message: text.slice(0, 500) }; }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', (err) => {
        clearTimeout(deadline);
        reject(err);
      });
    });
    const deadline = setTimeout(() => req.destroy(new Error(`no complete answer from ${target.origin} within ${timeoutMs} ms`)), timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`no answer from ${target.origin} within ${timeoutMs} ms`)));
    req.on('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
    req.end(data);
  });
}
