// The ledgerX quick start: organizations (each with its CAs and admin), one orderer group per
// organization (one party each), a committer of the first organization, the network of those
// groups, the groups' joins (each role awaited up to the join timeout) and the committer's join,
// one step after the other through the same use cases as the single routes. The request is
// checked first (programs present, names and mspIds free: a 4xx, nothing recorded); then the
// quick start is recorded with its steps and runs after the answer, recording each step as it
// starts and ends so that a client reads the progress (like a backup: IN_PROGRESS, then
// COMPLETED or FAILED). A failed step ends it and says why (a join: the role that did not come
// up, its node and its last log lines); what the steps before it made is kept and named in them.
// It is also a create on /creations (kind ledgerx-quickstart, application/creations.ts): each
// organization, node and network is listed there before it is made, a failure names its step,
// and POST /creations/{creationId}/undo removes all it made, like a consortium quick start's.
import type { CommandInput } from '../commands.ts';
import { runCommand } from '../commands.ts';
import { AppError, ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { assertNetworkName } from '../../domain/networks/networkName.ts';
import type { KeySpec } from '../../domain/keys/keyProvider.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { LEDGERX_COMMITTER_ROLES, LEDGERX_ORDERER_ROLES, type LedgerXRoleNodeCreatedData } from '../../domain/ledgerx/ledgerxNode.ts';
import { ledgerXQuickstarts, ledgerXQuickstartStream, type LedgerXQuickstart, type QuickstartFailure, type QuickstartStepKind } from '../../domain/ledgerx/ledgerxQuickstart.ts';
import { getOrganizationByMspId } from '../../projections/organizations.ts';
import { getLedgerXNetwork } from '../../projections/ledgerx/ledgerxNetworks.ts';
import { maskSecrets } from '../../domain/nodes/nodeEngine.ts';
import { createOrganization } from '../keys/organizationCreation.ts';
import { checkNodeName } from '../evm/evmNodeCreate.ts';
import { createLedgerXOrdererGroup } from './ledgerxOrdererGroupCreate.ts';
import { createLedgerXCommitter, reachableDatabase } from './ledgerxCommitterCreate.ts';
import { createLedgerXNetwork, joinLedgerXCommitter, joinLedgerXOrdererGroup } from './ledgerxNetworkCreate.ts';
import { ledgerXOf } from './ledgerxContext.ts';
import { missingProgram, preflight } from '../preflight.ts';
import { endClientCreation, startClientCreation } from '../creations.ts';

export interface LedgerXQuickstartRequest {
  name: string;
  channelName?: string;
  organizations: Array<{ name: string; mspId: string; domain?: string }>;
  providerId: number;
  spec: KeySpec;
  externalIp?: string;
  /** Orderer group i gets gRPC base grpcPort + 10 i, the committer grpcPort + 10 n; left out: each allocated from its default. */
  grpcPort?: number;
  /** The committer's database as a connection string (checked before anything is made); left out: made in the service's PostgreSQL. */
  committerDatabaseUrl?: string;
}

/** Quick starts running in this process (a record IN_PROGRESS that is not here was cut off by a stop of the service). */
const running = new Set<number>();

export const ledgerXQuickstartRunning = (id: number) => running.has(id);

const groupName = (req: LedgerXQuickstartRequest, i: number) => `${req.name}-orderer${i + 1}`;
const committerName = (req: LedgerXQuickstartRequest) => `${req.name}-committer`;

function plan(req: LedgerXQuickstartRequest): Array<{ kind: QuickstartStepKind; name: string }> {
  return [
    ...req.organizations.map((o) => ({ kind: 'organization' as const, name: o.mspId })),
    ...req.organizations.map((_, i) => ({ kind: 'orderer-group' as const, name: groupName(req, i) })),
    { kind: 'committer', name: committerName(req) },
    { kind: 'network', name: req.name },
    ...req.organizations.map((_, i) => ({ kind: 'join-orderer-group' as const, name: groupName(req, i) })),
    { kind: 'join-committer', name: committerName(req) },
  ];
}

async function check(input: CommandInput, req: LedgerXQuickstartRequest): Promise<void> {
  const { deps } = input;
  const ledgerx = ledgerXOf(deps);
  // Every check runs and one refusal says all of them (application/preflight.ts), nothing written.
  await preflight(async (p) => {
    await p.check(() => assertNetworkName(req.name));
    const channel = req.channelName ?? req.name.toLowerCase();
    await p.check(() => {
      if (!/^[a-z][a-z0-9.-]{0,248}$/.test(channel)) throw new ValidationError(req.channelName === undefined ? `The channel name defaults to the network name in lower case ("${channel}"), which Fabric refuses; give channelName.` : 'channelName must be lower case letters, digits, "." and "-", starting with a letter.', [{ field: 'channelName', message: 'a Fabric channel name' }]);
    });
    const mspIds = req.organizations.map((o) => o.mspId);
    await p.check(() => {
      if (new Set(mspIds).size !== mspIds.length) throw new ValidationError('organizations names an mspId twice.', [{ field: 'organizations', message: 'each mspId once' }]);
    });
    for (const [i, o] of req.organizations.entries()) {
      await p.check(async () => {
        if (await getOrganizationByMspId(deps.pool, o.mspId)) throw new ConflictError(`An organization with mspId ${o.mspId} already exists; the quick start makes its organizations.`, { field: `organizations[${i}].mspId` }, 'MSP_ID_TAKEN');
      });
    }
    await p.check(async () => {
      if (await getLedgerXNetwork(deps.pool, { name: req.name })) throw new ConflictError(`A ledgerX network named ${req.name} already exists.`, { field: 'name' }, 'NAME_TAKEN');
    });
    const names = [...req.organizations.flatMap((_, i) => [groupName(req, i), ...LEDGERX_ORDERER_ROLES.map((r) => `${groupName(req, i)}-${r}`)]), committerName(req), ...LEDGERX_COMMITTER_ROLES.map((r) => `${committerName(req)}-${r}`)];
    for (const n of names) {
      await p.check(() => checkNodeName(input, n).catch((err: AppError) => {
        throw new AppError(err.status, err.code, `${err.message} (the quick start names its nodes after the network: ${names.join(', ')})`, { details: [{ field: 'name', message: err.message }] });
      }));
    }
    await p.check(() => {
      if (req.grpcPort !== undefined && req.grpcPort + 10 * req.organizations.length + 104 > 65535) throw new ValidationError(`grpcPort ${req.grpcPort} leaves no room for ${req.organizations.length} orderer groups and a committer (base + 10 each, monitoring + 100..104).`, [{ field: 'grpcPort', message: 'too high' }]);
    });
    if (req.committerDatabaseUrl !== undefined) await p.check(() => reachableDatabase(input, req.committerDatabaseUrl!, 'committerDatabaseUrl'));
    const available = await ledgerx.runtime.available();
    if (!available.ok) p.refuse(missingProgram('programs', `Cannot run a ledgerX network here: ${available.reason}.`));
  });
}

/** Checks the request, records the quick start with its steps and runs it after returning its id. */
export async function startLedgerXQuickstart(input: CommandInput, req: LedgerXQuickstartRequest): Promise<number> {
  const { deps } = input;
  await check(input, req);
  // Claims the name (a second quick start of it while this one runs is a 409) before anything is made.
  const creationId = await startClientCreation(input, 'ledgerx-quickstart', req.name);
  const quickstartId = await deps.nextId('ledgerx-quickstart');
  await runCommand(input, ledgerXQuickstartStream(quickstartId), ledgerXQuickstarts, { type: 'RequestLedgerXQuickstart', quickstartId, networkName: req.name, creationId, steps: plan(req), at: deps.clock().toISOString() });
  running.add(quickstartId);
  void run(input, quickstartId, creationId, req).catch(() => undefined).finally(() => running.delete(quickstartId));
  return quickstartId;
}

export async function readLedgerXQuickstart(input: CommandInput, id: number): Promise<LedgerXQuickstart | null> {
  const { state } = await loadState(input.deps.store, ledgerXQuickstartStream(id), ledgerXQuickstarts);
  return state.quickstart;
}

function failureOf(err: unknown): QuickstartFailure {
  if (err instanceof AppError) {
    const x = (err.extra ?? {}) as { role?: string; roleNodeId?: number; lastLogLines?: string[]; nodeId?: number };
    return { message: maskSecrets(err.message), role: x.role ?? null, roleNodeId: x.roleNodeId ?? null, logTail: (x.lastLogLines ?? []).map(maskSecrets), resourceId: x.nodeId ?? null };
  }
  return { message: maskSecrets(err instanceof Error ? err.message : String(err)) };
}

async function run(input: CommandInput, quickstartId: number, creationId: number, req: LedgerXQuickstartRequest): Promise<void> {
  const { deps } = input;
  const stream = ledgerXQuickstartStream(quickstartId);
  const at = () => deps.clock().toISOString();
  let step = 0;
  const orgIds: number[] = [];
  const groupIds: number[] = [];
  let committerId = 0;
  let networkId = 0;
  const planned = plan(req);
  const base = (i: number) => (req.grpcPort === undefined ? {} : { grpcPort: req.grpcPort + 10 * i });
  const ip = req.externalIp === undefined ? {} : { externalIp: req.externalIp };
  const steps: Array<() => Promise<number>> = [
    ...req.organizations.map((o) => async () => {
      const id = await createOrganization(input, { name: o.name, mspId: o.mspId, description: `made by ledgerX quick start ${quickstartId}`, providerId: req.providerId, domain: o.domain, spec: req.spec, creationId });
      orgIds.push(id);
      return id;
    }),
    ...req.organizations.map((_, i) => async () => {
      const id = await createLedgerXOrdererGroup(input, { name: groupName(req, i), organizationId: orgIds[i], creationId, config: { ...ip, ...base(i) } });
      groupIds.push(id);
      return id;
    }),
    async () => (committerId = await createLedgerXCommitter(input, { name: committerName(req), organizationId: orgIds[0], creationId, config: { ...ip, ...base(req.organizations.length), ...(req.committerDatabaseUrl === undefined ? {} : { databaseUrl: req.committerDatabaseUrl }) } })),
    async () => (networkId = await createLedgerXNetwork(input, { name: req.name, channelName: req.channelName, description: `made by ledgerX quick start ${quickstartId}`, ordererGroupIds: groupIds, creationId })),
    ...req.organizations.map((_, i) => async () => {
      const row = await joinLedgerXOrdererGroup(input, networkId, groupIds[i]);
      if (row.status !== 'running') throw new AppError(422, 'JOIN_FAILED', `Orderer group ${row.name} joined but did not come up (${row.status}): ${row.error ?? 'no reason recorded'}`, { extra: { nodeId: row.id } });
      return groupIds[i];
    }),
    async () => {
      const row = await joinLedgerXCommitter(input, networkId, committerId);
      if (row.status !== 'running') throw new AppError(422, 'JOIN_FAILED', `Committer ${row.name} joined but did not come up (${row.status}): ${row.error ?? 'no reason recorded'}`, { extra: { nodeId: row.id } });
      return committerId;
    },
  ];
  try {
    for (; step < steps.length; step++) {
      await runCommand(input, stream, ledgerXQuickstarts, { type: 'StartQuickstartStep', step, at: at() });
      const resourceId = await steps[step]();
      // Its create ends before the record does: a client that reads the record ended finds the create ended too.
      if (step === steps.length - 1) await endClientCreation(input, creationId, { outcome: 'COMPLETED', resourceId: networkId }, 'ledgerx-quickstart');
      await runCommand(input, stream, ledgerXQuickstarts, { type: 'CompleteQuickstartStep', step, resourceId, at: at() });
    }
  } catch (err) {
    const failure = failureOf(err);
    if (failure.roleNodeId && !failure.logTail?.length) failure.logTail = await settledLogTail(input, failure.roleNodeId);
    const s = planned[step];
    await endClientCreation(input, creationId, { outcome: 'FAILED', step: s ? `${s.kind} ${s.name}` : `step ${step}`, message: failure.message }, 'ledgerx-quickstart')
      .catch((e: Error) => input.deps.log.warn({ quickstartId, creationId, err: e.message }, 'could not end the create of a failed ledgerX quick start'));
    await runCommand(input, stream, ledgerXQuickstarts, { type: 'FailQuickstartStep', step, at: at(), ...failure });
  }
}

/** A role cut off by the join timeout just after its launch may not have written its first lines yet: wait for them a little. */
async function settledLogTail(input: CommandInput, roleNodeId: number): Promise<string[]> {
  const { state } = await loadState(input.deps.store, nodeStream(roleNodeId), nodeAggregate);
  if (!state.node) return [];
  const deadline = Date.now() + 5000;
  for (;;) {
    const lines = (await ledgerXOf(input.deps).runtime.logs(state.node as LedgerXRoleNodeCreatedData, 20).catch(() => [] as string[])).map(maskSecrets);
    if (lines.length || Date.now() > deadline) return lines;
    await new Promise((r) => setTimeout(r, 250));
  }
}
