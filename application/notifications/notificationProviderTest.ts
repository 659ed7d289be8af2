// Testing a notification provider: a test message sent through it (SMTP: to the given address,
// else its recipients or its from address; WEBHOOK: a TEST payload), the outcome recorded as its
// lastTestStatus. A failed send is an outcome (status failed with the server's or receiver's
// reason), not an error.
import { runCommand, type CommandInput } from '../commands.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { notificationProviderStream, notificationProviders } from '../../domain/notifications/notificationProviders.ts';
import { sendNotification } from '../../domain/notifications/notifier.ts';
import { testNotification } from '../../domain/notifications/messages.ts';
import { getNotificationProvider } from '../../projections/notificationProviders.ts';

export interface NotificationTested {
  status: 'success' | 'failed';
  message: string;
  testedAt: string;
}

export async function testNotificationProvider(input: CommandInput, providerId: number, req: { testEmail?: string }): Promise<NotificationTested> {
  const { deps } = input;
  const p = await getNotificationProvider(deps.pool, providerId);
  if (!p) throw new NotFoundError('Notification provider', providerId);
  const at = deps.clock().toISOString();
  const r = await sendNotification(deps.notifier, { id: p.id, name: p.name, type: p.type, config: p.config, sealedSecrets: p.sealedSecrets }, testNotification(deps.newId(), at, p.name), { to: req.testEmail ? [req.testEmail] : undefined });
  const status = r.ok ? ('success' as const) : ('failed' as const);
  await runCommand(input, notificationProviderStream(p.id), notificationProviders, { type: 'RecordProviderTest', providerId: p.id, status, message: r.message, at });
  return { status, message: r.message, testedAt: at };
}
