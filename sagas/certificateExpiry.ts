// Certificate expiry watch: for each certificate a key gets, durable timers at notAfter - 30 days
// (CertificateExpiring, certificate.expiring) and at notAfter (CertificateExpired,
// certificate.expired). A newer certificate replaces the timers; the decider ignores a timer of a
// certificate the key no longer has, and reports each certificate once.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand } from '../domain/shared/commandHandler.ts';
import { DuplicateEventError } from '../domain/shared/errors.ts';
import { keyStream, keys } from '../domain/keys/keys.ts';
import type { Saga } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

export const EXPIRING_NOTICE_DAYS = 30;
const NAME = 'certificate-expiry';

export function certificateExpirySaga(store: EventStore): Saga {
  return {
    name: NAME,
    handles: ['KeyCertificateIssued', 'KeyDeleted'],
    async handle(e, ctx) {
      const keyId = Number(e.data.keyId);
      if (e.type === 'KeyDeleted') {
        await ctx.cancel(`${NAME}-expiring-${keyId}`);
        await ctx.cancel(`${NAME}-expired-${keyId}`);
        return;
      }
      const notAfter = new Date(String(e.data.notAfter));
      const payload = { keyId, serialNumber: String(e.data.serialNumber) };
      await ctx.schedule(`${NAME}-expiring-${keyId}`, new Date(notAfter.getTime() - EXPIRING_NOTICE_DAYS * 86_400_000), { ...payload, kind: 'expiring' });
      await ctx.schedule(`${NAME}-expired-${keyId}`, notAfter, { ...payload, kind: 'expired' });
    },
    async onTimer(timer, ctx) {
      const keyId = Number(timer.payload.keyId);
      const serialNumber = String(timer.payload.serialNumber);
      const type = timer.payload.kind === 'expired' ? 'MarkCertificateExpired' : 'MarkCertificateExpiring';
      let n = 0;
      try {
        await handleCommand(store, keyStream(keyId), keys, { type, keyId, serialNumber, at: ctx.now().toISOString() }, {
          metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id },
          newId: () => sagaEventId(NAME, `${timer.id}@${serialNumber}`, n++),
        });
      } catch (err) {
        if (!(err instanceof DuplicateEventError)) throw err;
      }
    },
  };
}
