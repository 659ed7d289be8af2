// Security facts of a request (denied requests, failed writes, logins, sensitive reads),
// recorded by the HTTP layer (access control, sign-in) and by use cases that refuse or read
// something sensitive themselves (the evm RPC gateway's refused methods). They are events like
// any other, so the audit log and its hash chain cover them.
import type { JsonObject } from '../domain/shared/eventStore.ts';
import { noteRecorded, requestMetadata, type CommandInput } from './commands.ts';
import { storable } from '../domain/shared/storableText.ts';

type Input = Pick<CommandInput, 'identity' | 'requestId' | 'ctx' | 'deps'>;

// The data may quote the request (a resource id from the path, a refused field name): made
// storable, so that a request refused for carrying unstorable text is still audited.
export async function recordSecurityEvent(input: Input, type: string, data: JsonObject, opts: { wait?: boolean; streamId?: string } = {}): Promise<void> {
  const day = input.deps.clock().toISOString().slice(0, 10);
  const r = await input.deps.store.append(opts.streamId ?? `security-${day}`, 'any', [{ id: input.deps.newId(), type, data: storable(data) }], requestMetadata(input));
  // Recorded by the route's handler (a signature, a sign-in): the request's own entry. Events of
  // authentication (a Basic sign-in on the way) come before the route is reached, and do not count.
  if (input.ctx.state.route) noteRecorded(input);
  // A denial recorded once is not recorded again when the 403 is answered (accessControl's after).
  if (type === 'AccessDenied') input.ctx.state.denialRecorded = true;
  if (opts.wait !== false) await input.deps.projector.waitFor(r.lastPosition);
}
