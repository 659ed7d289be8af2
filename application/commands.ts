// Use cases run commands through here: the generic handler, request metadata on every event,
// and read-your-writes (the call returns once the read models include the new events).
import { storable } from '../domain/shared/storableText.ts';
import { handleCommand, type CommandResult } from '../domain/shared/commandHandler.ts';
import type { Decider, DomainEvent } from '../domain/shared/decider.ts';
import type { AppendResult, EventMetadata, ExpectedVersion, NewEvent } from '../domain/shared/eventStore.ts';
import type { AppDeps } from './deps.ts';
import type { Identity } from './identity.ts';

/** What a use case is told about the request that asked for it: the parts of an HTTP request
 * (a Koa context satisfies it) that go into every event's metadata. A command line or a saga
 * supplies its own. */
export interface RequestContext {
  ip: string;
  method: string;
  path: string;
  state: Record<string, any>;
  get(header: string): string;
}

/** Who asks, for which request, and the service's dependencies: every use case's first argument. */
export interface CommandInput {
  identity: Identity | null;
  requestId: string;
  ctx: RequestContext;
  deps: AppDeps;
}

export function requestMetadata(input: CommandInput): EventMetadata {
  const id = input.identity;
  const ctx = input.ctx;
  const route = ctx.state.route as { path: string; responses: Record<number, unknown> } | undefined;
  const success = route ? Object.keys(route.responses).map(Number).find((c) => c >= 200 && c < 300) : undefined;
  // Headers and the path are as sent: storable() keeps a NUL or a lone surrogate from making
  // the event (and so the audit trace of a refused request) unstorable.
  return storable({
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
  });
}

export async function runCommand<State, Command, Event extends DomainEvent>(
  input: CommandInput,
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
  if (result.lastPosition !== null) {
    noteRecorded(input);
    await input.deps.projector.waitFor(result.lastPosition);
  }
  return result;
}

/**
 * Marks the request as having appended an event of its own (its audit entry). A successful
 * write that appended none (a contract call signed and sent, a signature) is recorded after the
 * answer as RequestSucceeded instead (http/auth/accessControl.ts), so no success goes unaudited.
 */
export function noteRecorded(input: Pick<CommandInput, 'ctx'>): void {
  input.ctx.state.recorded = true;
}

/** Whether the request appended an event of its own (noteRecorded). */
export const requestRecorded = (ctx: Pick<RequestContext, 'state'>): boolean => ctx.state.recorded === true;

/** Appends events outside a decider (audit facts, outcomes of calls to a ledger) with the request's metadata, noted as the request's record. */
export async function appendForRequest(input: CommandInput, streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion = 'any'): Promise<AppendResult> {
  const r = await input.deps.store.append(streamId, expectedVersion, events, requestMetadata(input));
  noteRecorded(input);
  return r;
}

/** The input of work no HTTP request asked for (the command line, the server's own start): no
 * identity, and events whose metadata name the work instead of a route (method CLI, endpoint
 * `what`). */
export function commandLineInput(deps: AppDeps, what: string): CommandInput {
  const requestId = deps.newId();
  return { identity: null, requestId, deps, ctx: { ip: '', method: 'CLI', path: what, state: {}, get: () => '' } };
}
