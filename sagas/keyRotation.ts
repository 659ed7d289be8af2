// Rotation on schedule: a key whose rotation is enabled gets its certificate issued again every
// intervalDays (CertificateAutoRenewed, certificate.auto_renewed); a failure is recorded as
// CertificateRenewalFailed (certificate.renewal_failed) and tried again at the next interval.
// One durable timer per key; disabling rotation or deleting the key cancels it.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand, loadState } from '../domain/shared/commandHandler.ts';
import { DuplicateEventError } from '../domain/shared/errors.ts';
import { keyStream, keys } from '../domain/keys/keys.ts';
import type { KeyServices } from '../domain/keys/keyServices.ts';
import { renewCertificate } from '../domain/keys/certificateRenewal.ts';
import type { Saga } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

const NAME = 'key-rotation';
const DAY = 86_400_000;

export function keyRotationSaga(store: EventStore, services: KeyServices): Saga {
  const timerId = (keyId: number) => `${NAME}-${keyId}`;
  return {
    name: NAME,
    handles: ['KeyRotationConfigured', 'KeyDeleted'],
    async handle(e, ctx) {
      const keyId = Number(e.data.keyId);
      if (e.type === 'KeyRotationConfigured' && e.data.enabled && e.data.intervalDays) {
        await ctx.schedule(timerId(keyId), new Date(new Date(String(e.data.at)).getTime() + Number(e.data.intervalDays) * DAY), { keyId });
      } else {
        await ctx.cancel(timerId(keyId));
      }
    },
    async onTimer(timer, ctx) {
      const keyId = Number(timer.payload.keyId);
      const { state } = await loadState(store, keyStream(keyId), keys);
      if (state.status !== 'active' || !state.rotation?.enabled || !state.rotation.intervalDays) return;
      let n = 0;
      const opts = { metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id }, newId: () => sagaEventId(NAME, `${timer.id}@${timer.dueAt}`, n++) };
      try {
        await renewCertificate({ store, services, now: ctx.now(), ...opts }, keyId, 'auto_renewed');
      } catch (err) {
        if (!(err instanceof DuplicateEventError)) {
          ctx.log('scheduled renewal failed', { keyId, error: (err as Error).message });
          await handleCommand(store, keyStream(keyId), keys, { type: 'RecordRenewalFailure', keyId, reason: (err as Error).message, at: ctx.now().toISOString() }, opts).catch((e2) => {
            if (!(e2 instanceof DuplicateEventError)) throw e2;
          });
        }
      }
      await ctx.schedule(timerId(keyId), new Date(ctx.now().getTime() + state.rotation.intervalDays * DAY), { keyId });
    },
  };
}
