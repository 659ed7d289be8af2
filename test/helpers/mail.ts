// A real SMTP server for tests (smtp-server from the npm registry) with AUTH checked against a
// username and password, STARTTLS or implicit TLS with a self-signed certificate, and a small
// MIME reader so tests assert on the parsed subject, text and HTML parts rather than grepping
// the raw message.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  user: string | undefined;
  secure: boolean;
  raw: string;
  subject: string;
  text: string;
  html: string;
}

/** A self-signed certificate for the loopback address `ip`. */
export function selfSignedCertificate(ip: string): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-smtp-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=lnm-test-smtp',
      '-addext', `subjectAltName=IP:${ip},DNS:localhost`, '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function decodeWords(s: string): string {
  return s.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=\s*/g, (_m, _cs, enc: string, txt: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(txt, 'base64').toString('utf8') : Buffer.from(txt.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_x, h) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'));
}

function splitPart(part: string): { headers: Record<string, string>; body: string } {
  const i = part.indexOf('\r\n\r\n');
  const head = i < 0 ? part : part.slice(0, i);
  const body = i < 0 ? '' : part.slice(i + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const c = line.indexOf(':');
    if (c > 0) headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
  }
  return { headers, body };
}

function decodeBody(body: string, encoding: string | undefined): string {
  const e = (encoding ?? '7bit').toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_m, h) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

export function parseMail(raw: string): { subject: string; text: string; html: string } {
  const out = { subject: '', text: '', html: '' };
  const walk = (part: string, top: boolean) => {
    const { headers, body } = splitPart(part);
    if (top) out.subject = decodeWords(headers.subject ?? '');
    const type = headers['content-type'] ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (/^multipart\//i.test(type) && boundary) {
      for (const p of body.split(`--${boundary}`).slice(1)) if (!p.startsWith('--')) walk(p.replace(/^\r\n/, ''), false);
    } else if (/^text\/html/i.test(type)) out.html = decodeBody(body, headers['content-transfer-encoding']);
    else if (/^text\/plain/i.test(type)) out.text = decodeBody(body, headers['content-transfer-encoding']);
  };
  walk(raw, true);
  return out;
}

export interface MailServer {
  host: string;
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** secure: implicit TLS from the first byte (port 465); otherwise STARTTLS is offered and required before AUTH (587), or, with plain, not offered at all (port 25). */
export async function startMailServer(opts: { host: string; port: number; secure: boolean; plain?: boolean; user: string; password: string; key: string; cert: string }): Promise<MailServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: opts.secure,
    key: opts.key,
    cert: opts.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: opts.plain === true,
    ...(opts.plain ? { disabledCommands: ['STARTTLS'] } : {}),
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.password) return cb(null, { user: auth.username });
      const err = new Error('Invalid username or password') as Error & { responseCode: number };
      err.responseCode = 535;
      cb(err);
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), user: session.user as string | undefined, secure: session.secure, raw, ...parseMail(raw) });
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return { host: opts.host, port: opts.port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
