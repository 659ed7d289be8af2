// Creates that make several things before the thing asked for (an evm network's validator keys,
// then the network; an organization's CA and admin keys, then the organization; a consortium
// node's identity and TLS keys, then the node) run through here, so that none of it is left half-made:
// - `trackedCreation` records the create before it makes anything (CreationStarted claims the
//   name: a concurrent create of the same name is a 409 before it makes a key), records each thing
//   before it makes it (CreationResourceMade, with the id the thing will have), and ends it: CreationCompleted once the network exists, or,
//   when a later step fails, removes what it made and records CreationFailed (the step, why,
//   what was made, removed, and left when a removal failed) before the error goes back;
// - `failInterruptedCreations`, run by the server at its start before it listens, ends the creates
//   this instance left open when it was stopped mid-way (kill -9): one whose network was recorded
//   is completed; any other is failed as interrupted, and what it made is removed (and an
//   organization's mspId claim released).
// - A create a client drives call by call (the console's consortium quick start, CLIENT_DRIVEN_KINDS)
//   is started by `startClientCreation` (POST /creations); the create calls carry its id and each
//   use case records what it makes with `recordMadeFor` before making it; the client ends it
//   (`endClientCreation`). Its failure removes nothing by itself: what it made is listed, and one
//   call removes it all (application/creationUndo.ts, POST /creations/{id}/undo).
import { commandLineInput, runCommand, type CommandInput } from './commands.ts';
import type { AppDeps } from './deps.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../domain/shared/errors.ts';
import { loadState } from '../domain/shared/commandHandler.ts';
import { CLIENT_DRIVEN_KINDS, creations, creationStream, type CreationKind, type MadeResource } from '../domain/creations/creation.ts';
import { maskSecrets } from '../domain/nodes/nodeEngine.ts';
import { getCreation, openCreationsOf, type CreationRow } from '../projections/creations.ts';
import { evmNetworkIdByName } from '../projections/evm/evmNetworks.ts';
import { discardKey } from './keys/keyCreation.ts';
import { getOrganizationByMspId } from '../projections/organizations.ts';
import { nodeIdByName } from '../projections/nodes.ts';
import { mspIdClaimStream, mspIdClaims } from '../domain/organizations/mspIdClaims.ts';

/** What a tracked create tells its record: the step it is at, and each thing it is about to make. */
export interface CreationSteps {
  readonly creationId: number;
  step(name: string): void;
  /** Takes the id of the next thing of this kind and records it before the create makes it (write-ahead); the id. */
  making(resource: MadeResource['resource']): Promise<number>;
}

/** The thing a create of each kind makes last, found by name: whether an interrupted create got that far. */
const resultOf: Record<CreationKind, (deps: AppDeps, name: string) => Promise<number | null>> = {
  'evm-network': (deps, name) => evmNetworkIdByName(deps.pool, name),
  organization: async (deps, mspId) => (await getOrganizationByMspId(deps.pool, mspId))?.id ?? null,
  'consortium-node': (deps, name) => nodeIdByName(deps.pool, name),
  // Its client ends it; cut off, what it made stays listed for POST /creations/{id}/undo.
  'consortium-quickstart': async () => null,
  // Its run ends it; cut off by a stop of the service, what it made stays listed the same way.
  'ledgerx-quickstart': async () => null,
};

/** What an interrupted create of a kind holds besides what it made: an organization's claim on its mspId. */
const releaseOf: Partial<Record<CreationKind, (input: CommandInput, name: string) => Promise<void>>> = {
  async organization(input, mspId) {
    const { state } = await loadState(input.deps.store, mspIdClaimStream(mspId), mspIdClaims);
    if (state.ownerId === null) return;
    await runCommand(input, mspIdClaimStream(mspId), mspIdClaims, { type: 'ReleaseMspId', mspId, organizationId: state.ownerId, at: input.deps.clock().toISOString() });
  },
};

// mspIds are case-sensitive; network and node names are unique whatever their case.
export const streamOf = (kind: CreationKind, name: string) => creationStream(kind, kind === 'organization' ? name : name.toLowerCase());

/** What may be said of a failure: an AppError's message (masked), never an internal error's text. */
function failureMessage(err: unknown): string {
  if (err instanceof AppError && err.expose) return maskSecrets(err.message);
  return 'an internal error (the service log has the details)';
}

async function removeAll(input: CommandInput, made: MadeResource[]): Promise<{ removed: MadeResource[]; left: MadeResource[] }> {
  const removed: MadeResource[] = [];
  const left: MadeResource[] = [];
  for (const r of [...made].reverse()) ((await discardKey(input, r.id)) ? removed : left).push(r);
  return { removed: removed.reverse(), left: left.reverse() };
}

export async function trackedCreation(input: CommandInput, kind: CreationKind, name: string, create: (steps: CreationSteps) => Promise<number>): Promise<number> {
  const { deps } = input;
  const at = () => deps.clock().toISOString();
  const stream = streamOf(kind, name);
  const creationId = await deps.nextId('creation');
  await runCommand(input, stream, creations, { type: 'StartCreation', creationId, kind, name, instance: deps.config.instanceId, at: at() });
  const made: MadeResource[] = [];
  let step = 'checks';
  const steps: CreationSteps = {
    creationId,
    step: (s) => void (step = s),
    async making(resource) {
      const r: MadeResource = { resource, id: await deps.nextId(resource) };
      made.push(r);
      await runCommand(input, stream, creations, { type: 'RecordMade', creationId, step, made: r, at: at() });
      return r.id;
    },
  };
  let resourceId: number;
  try {
    resourceId = await create(steps);
  } catch (err) {
    const { removed, left } = await removeAll(input, made);
    await runCommand(input, stream, creations, { type: 'FailCreation', creationId, step, message: failureMessage(err), interrupted: false, removed, left, at: at() }).catch((e) =>
      deps.log.warn({ creationId, err: (e as Error).message }, 'could not record a failed create'),
    );
    throw err;
  }
  await runCommand(input, stream, creations, { type: 'CompleteCreation', creationId, resourceId, at: at() });
  return resourceId;
}

/** Ends the creates this instance left open (it was stopped mid-way); how many. */
export async function failInterruptedCreations(deps: AppDeps): Promise<number> {
  const input = commandLineInput(deps, 'start-up: interrupted creates');
  const open = await openCreationsOf(deps.pool, deps.config.instanceId);
  for (const row of open) {
    const stream = streamOf(row.kind, row.name);
    const { state } = await loadState(deps.store, stream, creations);
    if (state.open?.creationId !== row.id) continue;
    const at = deps.clock().toISOString();
    const resourceId = await resultOf[row.kind](deps, row.name);
    if (resourceId !== null) {
      await runCommand(input, stream, creations, { type: 'CompleteCreation', creationId: row.id, resourceId, at });
      continue;
    }
    if (CLIENT_DRIVEN_KINDS.includes(row.kind)) {
      const message = `interrupted: the service stopped before the create ended; what it made (${state.open.made.length}) is kept until POST /creations/${row.id}/undo removes it`;
      await runCommand(input, stream, creations, { type: 'FailCreation', creationId: row.id, step: state.open.step, message, interrupted: true, removed: [], left: [], at });
      continue;
    }
    const { removed, left } = await removeAll(input, state.open.made);
    await releaseOf[row.kind]?.(input, row.name);
    const message = `interrupted: the service stopped before the create ended; ${removed.length} key(s) it made removed${left.length ? `, ${left.length} could not be (${left.map((l) => `${l.resource} ${l.id}`).join(', ')})` : ''}`;
    await runCommand(input, stream, creations, { type: 'FailCreation', creationId: row.id, step: state.open.step, message, interrupted: true, removed, left, at });
    deps.log.warn({ creationId: row.id, kind: row.kind, name: row.name, removed: removed.length, left: left.length }, 'an interrupted create was failed');
  }
  return open.length;
}

/** Starts the record of a create a client drives (CLIENT_DRIVEN_KINDS): it claims the name; its id. */
export async function startClientCreation(input: CommandInput, kind: CreationKind, name: string): Promise<number> {
  if (!CLIENT_DRIVEN_KINDS.includes(kind)) throw new ValidationError(`A ${kind} create records itself; only ${CLIENT_DRIVEN_KINDS.join(', ')} is started by a client.`, [{ field: 'kind', message: `one of ${CLIENT_DRIVEN_KINDS.join(', ')}` }]);
  const { deps } = input;
  const creationId = await deps.nextId('creation');
  await runCommand(input, streamOf(kind, name), creations, { type: 'StartCreation', creationId, kind, name, instance: deps.config.instanceId, at: deps.clock().toISOString() });
  return creationId;
}

/** The create a client drives, open: a 400 naming the field when there is none of that id, a 409 when it ended. */
async function openClientCreation(input: CommandInput, creationId: number, field = 'creationId'): Promise<CreationRow> {
  const row = await getCreation(input.deps.pool, creationId);
  if (!row || !CLIENT_DRIVEN_KINDS.includes(row.kind)) throw new ValidationError(`There is no client-driven create ${creationId} (a consortium or ledgerX quick start's).`, [{ field, message: `no such create` }]);
  if (row.status !== 'IN_PROGRESS') throw new ConflictError(`Create ${creationId} (${row.kind} ${row.name}) has ended (${row.status}); start another create.`, { creationId }, 'CREATION_NOT_OPEN');
  return row;
}

/**
 * Records, before it is made, a thing made for the client-driven create `creationId` (nothing when
 * the call carries none): the thing's id is listed on the create, so one undo removes it.
 */
export async function recordMadeFor(input: CommandInput, creationId: number | undefined, resource: MadeResource['resource'], id: number): Promise<void> {
  if (creationId === undefined) return;
  const row = await openClientCreation(input, creationId);
  await runCommand(input, streamOf(row.kind, row.name), creations, { type: 'RecordMade', creationId, step: resource, made: { resource, id }, at: input.deps.clock().toISOString() });
}

/** Checks, before anything is made, that a call's creationId names an open client-driven create. */
export async function assertCreationOpen(input: CommandInput, creationId: number | undefined): Promise<void> {
  if (creationId !== undefined) await openClientCreation(input, creationId);
}

/** The client ends its create: completed with what it made last, or failed at a step (what it made is kept, listed for the undo). */
export async function endClientCreation(input: CommandInput, creationId: number, end: { outcome: 'COMPLETED'; resourceId: number } | { outcome: 'FAILED'; step: string; message: string }, kind: CreationKind = 'consortium-quickstart'): Promise<void> {
  const row = await openClientCreation(input, creationId, 'id');
  // A ledgerX quick start is ended by its own run, never by a client's POST /creations/{id}/end.
  if (row.kind !== kind) throw new ValidationError(`Create ${creationId} is a ${row.kind}: it is ended by the service, not by this call.`, [{ field: 'id', message: `not a ${kind}` }]);
  const stream = streamOf(row.kind, row.name);
  const at = input.deps.clock().toISOString();
  if (end.outcome === 'COMPLETED') await runCommand(input, stream, creations, { type: 'CompleteCreation', creationId, resourceId: end.resourceId, at });
  else await runCommand(input, stream, creations, { type: 'FailCreation', creationId, step: end.step, message: maskSecrets(end.message), interrupted: false, removed: [], left: [], at });
}

export async function creationOr404(input: CommandInput, creationId: number): Promise<CreationRow> {
  const row = await getCreation(input.deps.pool, creationId);
  if (!row) throw new NotFoundError('Create', creationId);
  return row;
}
