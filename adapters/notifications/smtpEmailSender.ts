// SMTP through nodemailer. Port 465 speaks TLS from the first byte; 587 must upgrade with
// STARTTLS (requireTLS, so a server that does not offer it is an error, not a clear-text send);
// 25 is plain unless `tls` asks for STARTTLS there too. The server's own reply (a refused AUTH,
// a rejected recipient) is what a failure says.
import nodemailer from 'nodemailer';
import type { EmailSender } from '../../domain/notifications/ports.ts';
import { checkedAddress } from '../outbound/targetGuard.ts';

/** What nodemailer's error codes mean, said before the server's own reply. */
const stages: Record<string, string> = {
  ETLS: 'STARTTLS was refused or failed',
  EAUTH: 'authentication failed',
  ECONNECTION: 'connection failed',
  ETIMEDOUT: 'timed out',
  EENVELOPE: 'sender or recipients refused',
  EMESSAGE: 'message refused',
};

/**
 * The mail server's name is resolved and checked here, like a webhook's (a loopback, private or
 * link-local answer is refused unless private targets are allowed), and the connection goes to
 * exactly the address checked; TLS still verifies the certificate against the name.
 */
export function createSmtpEmailSender(opts: { allowPrivateTargets: boolean } = { allowPrivateTargets: false }): EmailSender {
  return {
    async send(smtp, email) {
      const implicitTls = smtp.port === 465;
      const target = await checkedAddress(smtp.host, opts.allowPrivateTargets);
      if ('refusal' in target) return { ok: false, message: `${smtp.host}:${smtp.port}: refused: ${target.refusal}` };
      const transport = nodemailer.createTransport({
        host: target.address,
        port: smtp.port,
        secure: implicitTls,
        requireTLS: !implicitTls && (smtp.port === 587 || smtp.tls),
        ignoreTLS: !implicitTls && smtp.port !== 587 && !smtp.tls,
        auth: smtp.username ? { user: smtp.username, pass: smtp.password } : undefined,
        connectionTimeout: smtp.timeoutSeconds * 1000,
        greetingTimeout: smtp.timeoutSeconds * 1000,
        socketTimeout: smtp.timeoutSeconds * 1000,
        tls: { servername: smtp.host.replace(/^\[|\]$/g, ''), ...(smtp.caCert ? { ca: [smtp.caCert] } : {}) },
      });
      try {
        const info = await transport.sendMail({ from: smtp.from, to: email.to, subject: email.subject, text: email.text, html: email.html });
        return { ok: true, message: `accepted by ${smtp.host}:${smtp.port} for ${info.accepted.join(', ')}: ${info.response}` };
      } catch (err) {
        const e = err as Error & { response?: string; code?: string };
        const stage = e.code ? stages[e.code] : undefined;
        return { ok: false, message: `${smtp.host}:${smtp.port}: ${stage ? stage + ': ' : ''}${e.response ?? e.message}${e.code && !(e.response ?? e.message).includes(e.code) ? ` (${e.code})` : ''}` };
      } finally {
        transport.close();
      }
    },
  };
}
