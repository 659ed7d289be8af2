// Routes run commands through here: the generic handler, request metadata on every event,
// and read-your-writes (the call returns once the read models include the new events).
import { handleCommand, type CommandResult } from '../domain/shared/commandHandler.ts';
import type { Decider, DomainEvent } from '../domain/shared/decider.ts';
import type { EventMetadata } from '../domain/shared/eventStore.ts';
import type { RouteInput } from '../http/route.ts';

export function requestMetadata(input: Pick<RouteInput<unknown, unknown, unknown>, 'identity' | 'requestId' | 'ctx' | 'deps'>): EventMetadata {
  const id = input.identity;
  const ctx = input.ctx;
  const route = ctx.state.route as { path: string; responses: Record<number, unknown> } | undefined;
  const success = route ? Object.keys(route.responses).map(Number).find((c) => c >= 200 && c < 300) : undefined;
  return {
    timestamp: input.deps.clock().toISOString(),
    requestId: input.requestId,
    ip: ctx.ip || null,
    userAgent: ctx.get('user-agent') || null,
    correlationId: input.requestId,
    sessionId: id?.sessionId ?? null,
    method: ctx.method,
    endpoint: ctx.path,
    route: route ? '/api/v1' + route.path : null,
    requestStartedAt: ctx.state.startedAt ?? null,
    responseCode: success ?? null,
    actor: id ? { userId: id.userId, username: id.username, apiKeyId: id.apiKeyId ?? null, kind: id.method } : null,
  };
}

export async function runCommand<State, Command, Event extends DomainEvent>(
  input: Pick<RouteInput<unknown, unknown, unknown>, 'identity' | 'requestId' | 'ctx' | 'deps'>,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  opts: { expectedVersion?: number } = {},
): Promise<CommandResult<State>> {
  const result = await handleCommand(input.deps.store, streamId, decider, command, {
    metadata: requestMetadata(input),
    newId: input.deps.newId,
    expectedVersion: opts.expectedVersion,
  });
  if (result.lastPosition !== null) await input.deps.projector.waitFor(result.lastPosition);
  return result;
}
