// The mail server is an outbound target like a webhook: a name or address that is loopback,
// private or link-local is refused before any connection unless private targets are allowed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { createSmtpEmailSender } from '../../../adapters/notifications/smtpEmailSender.ts';

const smtp = (host: string, port: number) => ({ host, port, username: '', password: '', from: 'lnm@example.com', tls: false, caCert: null, timeoutSeconds: 2 });
const email = { to: ['ops@example.com'], subject: 's', text: 't', html: '<p>t</p>' };

test('a private SMTP host (by name, literal, mapped IPv6) is refused without a connection; allowed, it is connected to', async () => {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.end('554 go away\r\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  for (const host of ['127.0.0.1', 'localhost', '::ffff:127.0.0.1', '127.1']) {
    const r = await createSmtpEmailSender({ allowPrivateTargets: false }).send(smtp(host, port), email);
    assert.is(r.ok, false, host);
    assert.match(r.message, /refused: .*private address/, host);
  }
  assert.is(connections, 0, 'nothing connected');
  const allowed = await createSmtpEmailSender({ allowPrivateTargets: true }).send(smtp('127.0.0.1', port), email);
  assert.is(allowed.ok, false);
  assert.ok(connections > 0, 'connected when private targets are allowed');
  await new Promise<void>((r) => server.close(() => r()));
});

test.run();
