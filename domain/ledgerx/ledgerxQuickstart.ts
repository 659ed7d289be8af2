// A ledgerX quick start (stream ledgerx-quickstart-<id>): one request that makes organizations,
// an orderer group per organization, a committer, the network, and joins them. Its record is the
// list of steps fixed at the request, each PENDING, RUNNING, DONE or FAILED, so that a client
// reads the progress while it runs (GET /networks/ledgerx/quickstart/{id}); the quick start ends
// COMPLETED or FAILED (the first failed step says why; a join names the role and its log tail).
// Like a backup (IN_PROGRESS, then COMPLETED or FAILED), the record is the events themselves.
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';

export const ledgerXQuickstartStream = (id: number) => `ledgerx-quickstart-${id}`;

export type QuickstartStepKind = 'organization' | 'orderer-group' | 'committer' | 'network' | 'join-orderer-group' | 'join-committer';
export type QuickstartStepStatus = 'PENDING' | 'RUNNING' | 'DONE' | 'FAILED';

export interface QuickstartStep {
  kind: QuickstartStepKind;
  /** The organization's mspId, the node's or the network's name. */
  name: string;
  status: QuickstartStepStatus;
  /** What the step made or joined: organization, node or network id. */
  resourceId: number | null;
  message: string | null;
  /** A join that failed: the role that did not come up, its node and its last log lines. */
  role: string | null;
  roleNodeId: number | null;
  logTail: string[];
  startedAt: string | null;
  finishedAt: string | null;
}

export interface QuickstartFailure {
  message: string;
  resourceId?: number | null;
  role?: string | null;
  roleNodeId?: number | null;
  logTail?: string[];
}

export interface LedgerXQuickstart {
  quickstartId: number;
  networkName: string;
  status: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  networkId: number | null;
  /** Its record on /creations (what it made, listed; a failed one undone by POST /creations/{id}/undo); null for one run before that record. */
  creationId: number | null;
  error: string | null;
  steps: QuickstartStep[];
  createdAt: string;
  finishedAt: string | null;
}

export type LedgerXQuickstartEvent =
  | DomainEvent<'LedgerXQuickstartRequested', { quickstartId: number; networkName: string; creationId?: number; steps: Array<{ kind: QuickstartStepKind; name: string }>; at: string }>
  | DomainEvent<'LedgerXQuickstartStepStarted', { quickstartId: number; step: number; at: string }>
  | DomainEvent<'LedgerXQuickstartStepDone', { quickstartId: number; step: number; resourceId: number | null; at: string }>
  | DomainEvent<'LedgerXQuickstartStepFailed', { quickstartId: number; step: number; message: string; resourceId: number | null; role: string | null; roleNodeId: number | null; logTail: string[]; at: string }>;

export type LedgerXQuickstartCommand =
  | { type: 'RequestLedgerXQuickstart'; quickstartId: number; networkName: string; creationId: number; steps: Array<{ kind: QuickstartStepKind; name: string }>; at: string }
  | { type: 'StartQuickstartStep'; step: number; at: string }
  | { type: 'CompleteQuickstartStep'; step: number; resourceId: number | null; at: string }
  | ({ type: 'FailQuickstartStep'; step: number; at: string } & QuickstartFailure);

export interface LedgerXQuickstartState {
  quickstart: LedgerXQuickstart | null;
}

const withStep = (q: LedgerXQuickstart, i: number, patch: Partial<QuickstartStep>): LedgerXQuickstart => ({ ...q, steps: q.steps.map((s, j) => (j === i ? { ...s, ...patch } : s)) });

export const ledgerXQuickstarts: Decider<LedgerXQuickstartState, LedgerXQuickstartCommand, LedgerXQuickstartEvent> = {
  initialState: () => ({ quickstart: null }),
  evolve(s, e) {
    const q = s.quickstart;
    switch (e.type) {
      case 'LedgerXQuickstartRequested':
        return {
          quickstart: {
            quickstartId: e.data.quickstartId, networkName: e.data.networkName, status: 'IN_PROGRESS', networkId: null, creationId: e.data.creationId ?? null, error: null, createdAt: e.data.at, finishedAt: null,
            steps: e.data.steps.map((st) => ({ ...st, status: 'PENDING', resourceId: null, message: null, role: null, roleNodeId: null, logTail: [], startedAt: null, finishedAt: null })),
          },
        };
      case 'LedgerXQuickstartStepStarted':
        return q ? { quickstart: withStep(q, e.data.step, { status: 'RUNNING', startedAt: e.data.at }) } : s;
      case 'LedgerXQuickstartStepDone': {
        if (!q) return s;
        const next = withStep(q, e.data.step, { status: 'DONE', resourceId: e.data.resourceId, finishedAt: e.data.at });
        const last = next.steps.every((st) => st.status === 'DONE');
        const networkId = q.steps[e.data.step].kind === 'network' ? e.data.resourceId : q.networkId;
        return { quickstart: { ...next, networkId, status: last ? 'COMPLETED' : 'IN_PROGRESS', finishedAt: last ? e.data.at : null } };
      }
      case 'LedgerXQuickstartStepFailed': {
        if (!q) return s;
        const { message, resourceId, role, roleNodeId, logTail, at } = e.data;
        const next = withStep(q, e.data.step, { status: 'FAILED', message, resourceId, role, roleNodeId, logTail, finishedAt: at });
        return { quickstart: { ...next, status: 'FAILED', error: `${q.steps[e.data.step].kind} ${q.steps[e.data.step].name}: ${message}`, finishedAt: at } };
      }
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    if (c.type === 'RequestLedgerXQuickstart') {
      if (s.quickstart) throw new ConflictError(`Quick start ${c.quickstartId} exists.`);
      const { type: _t, ...data } = c;
      return [{ type: 'LedgerXQuickstartRequested', data }];
    }
    const q = s.quickstart;
    if (!q) throw new NotFoundError('Quick start', 0);
    if (q.status !== 'IN_PROGRESS') throw new ConflictError(`Quick start ${q.quickstartId} has ended (${q.status}).`);
    const step = q.steps[c.step];
    if (!step) throw new NotFoundError('Quick start step', c.step);
    switch (c.type) {
      case 'StartQuickstartStep':
        if (step.status !== 'PENDING') throw new ConflictError(`Step ${c.step} of quick start ${q.quickstartId} is ${step.status}.`);
        return [{ type: 'LedgerXQuickstartStepStarted', data: { quickstartId: q.quickstartId, step: c.step, at: c.at } }];
      case 'CompleteQuickstartStep':
        if (step.status !== 'RUNNING') throw new ConflictError(`Step ${c.step} of quick start ${q.quickstartId} is ${step.status}.`);
        return [{ type: 'LedgerXQuickstartStepDone', data: { quickstartId: q.quickstartId, step: c.step, resourceId: c.resourceId, at: c.at } }];
      case 'FailQuickstartStep':
        if (step.status === 'DONE' || step.status === 'FAILED') throw new ConflictError(`Step ${c.step} of quick start ${q.quickstartId} is ${step.status}.`);
        return [{ type: 'LedgerXQuickstartStepFailed', data: { quickstartId: q.quickstartId, step: c.step, message: c.message, resourceId: c.resourceId ?? null, role: c.role ?? null, roleNodeId: c.roleNodeId ?? null, logTail: c.logTail ?? [], at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
