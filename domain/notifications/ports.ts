// What notifications need from the outside besides outbound HTTP and the secret box
// (domain/webhooks/ports.ts): an SMTP client. Adapter: adapters/notifications/smtpEmailSender.ts.

export interface SmtpSettings {
  host: string;
  /** 465: implicit TLS; 587: STARTTLS required; 25: plain unless `tls`. */
  port: number;
  username: string;
  password: string;
  from: string;
  tls: boolean;
  /** PEM of a CA to trust besides the system ones (a private or self-signed mail server). */
  caCert: string | null;
  timeoutSeconds: number;
}

export interface Email {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface EmailSender {
  /** Never throws: a refusal of the server (its reply) comes back as `message`. */
  send(smtp: SmtpSettings, email: Email): Promise<{ ok: boolean; message: string }>;
}
