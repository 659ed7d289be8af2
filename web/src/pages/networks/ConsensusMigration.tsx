// The etcdraft -> SmartBFT migration of a consortium network (issue 37 items 7 and 9;
// POST /networks/consortium/{id}/consensus/migrate, GET .../consensus/migration; docs/consortium.md
// "Migrating to SmartBFT"). For an etcdraft network and a user with NETWORK_UPDATE: the SmartBFT
// options (each empty one takes its default), the dry run first (each channel's diff, the orderers
// that restart) or its refusal said in words (3f + 1 consenters, the nodes below Fabric 3.0 linked
// to their pages, channel capability V3_0 missing), a confirmation that says it is one way and that
// the orderers restart, then the progress (the migration's phase and steps, polled) until done, or
// the failure naming its phase, what became of the channels (rolled back to etcdraft, the rollback
// incomplete, or part on BFT to be resumed) and a way on (start over with a dry run, or resume).
// The network's view then says smartbft.
import { useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { ActionError } from '../../components/states';
import { useSession } from '../../session';
import { ConfigDiff } from './ConfigChangeReview';
import { smartBftBody, SmartBftOptionsFields, type SmartBftValues } from './SmartBftOptions';
import { migrationChannels, migrationChannelText, peerNotRolledBackAdvice, peersNotRolledBack, peersRolledBack } from './migrationPeers';

const PHASES: Record<string, string> = {
  checks: 'checking the rules',
  maintenance: 'putting the channels in maintenance',
  backup: 'stopping the orderers and backing up their data',
  switch: 'switching the channels to BFT',
  restart: 'restarting the orderers on BFT',
  normal: 'leaving maintenance on BFT',
  rollback: 'restoring the backups (rollback)',
  done: 'done',
};
const phaseText = (p: string) => `${p} (${PHASES[p] ?? p})`;

/** A refused migration (or dry run) said in words, with what to do first. */
function Refusal({ error }: { error: unknown }) {
  if (!(error instanceof ApiError)) return <ActionError error={error} />;
  if (error.code === 'MIGRATION_NODES_BELOW_V3') {
    const nodes = (Array.isArray(error.context.nodes) ? error.context.nodes : []) as Array<{ node_id: number; name: string; role: string; fabric_version: string | null }>;
    return (
      <div role="alert" data-testid="migration-refusal">
        <p>Not migrated: SmartBFT needs every orderer and peer of the channels on Fabric 3.0 or newer. These are not; upgrade them first (each node's page, one node at a time):</p>
        <ul>
          {nodes.map((n) => (
            <li key={n.node_id}>
              <Link to={`/nodes/${n.node_id}`}>{n.name}</Link> ({n.role}, {n.fabric_version ? `Fabric ${n.fabric_version}` : 'no recorded Fabric release'})
            </li>
          ))}
        </ul>
      </div>
    );
  }
  const words: Record<string, string> = {
    MIGRATION_BFT_SIZE: 'Not migrated: SmartBFT needs 3f + 1 consenters to tolerate f faulty ones, so at least 4. Join more orderers and add them as consenters first.',
    MIGRATION_CAPABILITY: 'Not migrated: the channel capability V3_0 is missing. Raise the channel capability to V3_0 first (the channel configuration section above).',
    MIGRATION_NOT_RAFT: 'Not migrated: only an etcdraft network migrates to SmartBFT.',
    MIGRATION_ENGINE: 'Not migrated: every orderer must run on this machine (process or docker engine), a registered Docker node host or a registered Kubernetes cluster, whose data the service backs up; the node host of an orderer is not registered.',
    MIGRATION_STATE: 'Not migrated: each channel must be etcdraft in its normal state and every consenter an orderer this service holds.',
    NODES_DOWN: 'Not migrated: every orderer must be running.',
    MIGRATION_IN_PROGRESS: 'Not migrated: a migration is already running.',
  };
  const said = words[error.code];
  if (!said) return <ActionError error={error} />;
  return (
    <div role="alert" data-testid="migration-refusal">
      <p>
        <strong>{said}</strong>
      </p>
      <p className="muted">{error.message}</p>
    </div>
  );
}

/** The steps the service recorded, in order; nothing where there are none. */
function Steps({ steps, testId }: { steps: string[]; testId: string }) {
  return steps.length ? (
    <ol data-testid={testId}>
      {steps.map((s, i) => (
        <li key={i}>{s}</li>
      ))}
    </ol>
  ) : null;
}

/** The migration's phase and steps as the service says them. */
function Progress({ phase, status, steps }: { phase: string; status: string; steps: string[] }) {
  return (
    <div role="status" aria-label="Migration progress" data-testid="migration-progress">
      <p>
        Migration {status}: phase <strong data-testid="migration-phase">{phaseText(phase)}</strong>
      </p>
      <Steps steps={steps} testId="migration-steps" />
    </div>
  );
}

/**
 * What a failed migration (409 MIGRATION_FAILED) left, from the steps the service recorded: the
 * backups put back and the channels on etcdraft ("restored: ..."), a rollback that did not complete
 * ("rollback incomplete: ..."), or, failed in phase normal after a channel left maintenance on BFT,
 * the backups kept for a resume.
 */
function failureOutcome(phase: string, steps: string[]): { kind: 'rolled-back' | 'incomplete' | 'resumable' | 'unknown'; text: string } {
  // The last rollback's outcome: a rollback that did not complete may have been taken up again since.
  const lastOutcome = [...steps].reverse().find((s) => s.startsWith('rollback incomplete') || s.startsWith('restored:'));
  const incomplete = lastOutcome?.startsWith('rollback incomplete') ? lastOutcome : undefined;
  if (incomplete) return { kind: 'incomplete', text: `The rollback did not complete (${incomplete.replace(/^rollback incomplete:\s*/, '')}): the channels may still be in maintenance. Fix the cause (an orderer's page says why it did not start), then take the rollback up again: the backups are put back again, the orderers started and the channels taken out of maintenance on etcdraft.` };
  // A failure before the data directories were all backed up: nothing to put back (the service says "restored: no backups ...").
  if (lastOutcome?.startsWith('restored: no backup')) return { kind: 'rolled-back', text: 'Rolled back: nothing was migrated. The migration failed before its backups were all taken, so no data was put back (the chain was not changed); the orderers run on etcdraft (raft) and the channels are out of maintenance: they order on etcdraft as before. Fix the cause above, then start over with a dry run.' };
  if (lastOutcome?.startsWith('restored:')) return { kind: 'rolled-back', text: "Rolled back: nothing was migrated. Every orderer's data was put back from its backup and it was started again on etcdraft (raft), and the channels left maintenance: they order on etcdraft as before. Fix the cause above, then start over with a dry run." };
  if (phase === 'normal') return { kind: 'resumable', text: 'Part of the migration is done: a channel already orders on SmartBFT, so nothing was rolled back and the backups are kept. Resume the migration to take the remaining channels out of maintenance on SmartBFT.' };
  return { kind: 'unknown', text: 'The service did not say how the channels were left: check the migration\'s steps above and the channel configuration.' };
}

/**
 * A failed migration, from the 409 MIGRATION_FAILED's context or, after a reload, from the record
 * GET .../consensus/migration answers (the same fields: phase, steps, channels,
 * peers_not_rolled_back): the phase, the reason, what became of each channel, the steps, the peers
 * rolled back (from the steps) and those not rolled back with what to do, and the way on.
 */
function FailedMigration({ phase, message, record, onResume, onStartOver, recorded = false }: { phase: string; message: string; record: Record<string, unknown>; onResume: () => void; onStartOver: () => void; recorded?: boolean }) {
  const steps = Array.isArray(record.steps) ? (record.steps as string[]) : [];
  const outcome = failureOutcome(phase, steps);
  const notRolledBack = peersNotRolledBack(record);
  const channels = migrationChannels(record);
  return (
    <div role="alert" data-testid="migration-failed" data-recorded={recorded ? 'true' : 'false'}>
      <p>
        <strong>{recorded ? 'The last migration of this network failed' : 'The migration failed'} in phase {phaseText(phase)}.</strong> {message}
      </p>
      <p data-testid="migration-failure-outcome" data-outcome={outcome.kind}>
        <strong>{outcome.text}</strong>
      </p>
      {channels.length ? (
        <ul data-testid="migration-channels">
          {channels.map((c) => (
            <li key={c.network_id}>{migrationChannelText(c)}</li>
          ))}
        </ul>
      ) : null}
      <Steps steps={steps} testId="migration-failed-steps" />
      {peersRolledBack(steps).length ? (
        <div data-testid="migration-peers-rolled-back">
          <p>Peers rolled back to the restored etcdraft chain:</p>
          <ul>
            {peersRolledBack(steps).map((step, i) => (
              <li key={i}>{step.replace(/^rollback: /, '')}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {notRolledBack.length ? (
        <div data-testid="migration-peers-not-rolled-back">
          <p>
            <strong>Peers not rolled back: {notRolledBack.map((p) => `${p.name} (channel ${p.channel})`).join(', ')}.</strong>
          </p>
          <ul>
            {notRolledBack.map((p) => (
              <li key={`${p.node_id}-${p.channel}`}>
                <Link to={`/nodes/${p.node_id}`}>{p.name}</Link>: {peerNotRolledBackAdvice(p)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {outcome.kind === 'resumable' ? (
        <button type="button" className="primary" onClick={onResume}>
          Resume the migration
        </button>
      ) : outcome.kind === 'incomplete' ? (
        // The same POST: the service takes the rollback up again (not a new migration).
        <button type="button" className="primary" onClick={onResume}>
          Take the rollback up again
        </button>
      ) : (
        <button type="button" onClick={onStartOver}>
          Start over (dry run first)
        </button>
      )}
    </div>
  );
}

export function ConsensusMigration({ networkId, consensus }: { networkId: number; consensus: string }) {
  const { can } = useSession();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState<SmartBftValues>({});
  const [confirming, setConfirming] = useState(false);
  // How long each waiting step may take (waitSeconds; empty: the service's 180 s). Also sent by a resume.
  const [waitSeconds, setWaitSeconds] = useState('');
  const send = (dryRun: boolean) =>
    unwrap(
      api.POST('/api/v1/networks/consortium/{id}/consensus/migrate', {
        params: { path: { id: networkId }, query: dryRun ? { dry_run: true } : {} },
        body: { to: 'smartbft', ...(smartBftBody(values) ? { smartBftOptions: smartBftBody(values) } : {}), ...(waitSeconds.trim() ? { waitSeconds: Number(waitSeconds) } : {}) },
      }),
    );
  const dry = useMutation({ mutationFn: () => send(true), onMutate: () => setConfirming(false) });
  const run = useMutation({
    mutationFn: () => send(false),
    onSettled: () => {
      for (const key of [['network', 'consortium', networkId], ['consenters', networkId], ['channel-config', networkId], ['network-map', networkId], ['nodes'], ['consensus-migration', networkId]]) void qc.invalidateQueries({ queryKey: key });
    },
  });
  const [dismissed, setDismissed] = useState(false);
  // The network's last migration as recorded (404 when none): polled while one runs here.
  const last = useQuery({
    queryKey: ['consensus-migration', networkId],
    retry: false,
    refetchInterval: run.isPending ? 1000 : false,
    queryFn: () => unwrap(api.GET('/api/v1/networks/consortium/{id}/consensus/migration', { params: { path: { id: networkId } } })),
  });
  const progress = last;
  const failed = run.error instanceof ApiError && run.error.code === 'MIGRATION_FAILED' ? run.error : null;
  // After a reload (or on another server of the database) the mutation is gone: the last migration
  // recorded, when it failed, says the same as the 409 did (GET .../consensus/migration).
  const lastFailed = run.isIdle && !dismissed && last.data?.status === 'failed' ? last.data : null;
  if (!can('NETWORK_UPDATE') || (consensus !== 'etcdraft' && run.isIdle && !(lastFailed && lastFailed.phase === 'normal'))) return null;
  const startOver = () => {
    run.reset();
    dry.reset();
    setConfirming(false);
    setDismissed(true);
    setOpen(true);
  };
  return (
    <section aria-label="Consensus migration">
      <h2>Consensus migration</h2>
      {lastFailed && !open ? (
        <FailedMigration
          recorded
          phase={lastFailed.phase}
          message={lastFailed.steps.find((st) => st.startsWith('failed in phase ')) ?? `The migration failed in phase ${lastFailed.phase}.`}
          record={lastFailed as unknown as Record<string, unknown>}
          onResume={() => { setOpen(true); run.mutate(); }}
          onStartOver={startOver}
        />
      ) : null}
      {lastFailed && lastFailed.phase === 'normal' && !open ? null : !open ? (
        <button type="button" onClick={() => setOpen(true)}>
          Migrate to SmartBFT
        </button>
      ) : (
        <div role="group" aria-label="Migrate to SmartBFT" className="card">
          <p>
            Every channel this network's orderers order moves from etcdraft to SmartBFT (Byzantine fault tolerant) with the same consenters. It needs Fabric 3.0 or newer on every
            orderer and peer, channel capability V3_0 and at least 4 consenters (3f + 1). The dry run checks that and shows each channel's change; nothing is changed by it.
          </p>
          {run.isIdle ? (
            <>
              <SmartBftOptionsFields values={values} onChange={setValues} error={dry.error} />
              <label>
                Wait per step (seconds, 30 to 3600; empty: 180)
                <input type="number" min={30} max={3600} value={waitSeconds} placeholder="180" onChange={(e) => setWaitSeconds(e.target.value)} />
              </label>
              <p className="hint">How long an orderer may take to get healthy after its start, or a channel update to be ordered, before the migration (or its rollback) gives up on it.</p>
              <button type="button" disabled={dry.isPending} onClick={() => dry.mutate()}>
                {dry.isPending ? 'Checking (dry run)…' : 'Dry run'}
              </button>{' '}
              <button type="button" onClick={() => { setOpen(false); dry.reset(); setConfirming(false); }}>
                Close
              </button>
            </>
          ) : null}
          {dry.error ? <Refusal error={dry.error} /> : null}
          {dry.data && run.isIdle ? (
            <div data-testid="migration-dry-run">
              <p role="status">The checks passed; nothing was changed. The migration would change:</p>
              {dry.data.networks.map((n) => (
                <div key={n.network_id}>
                  <h3>
                    Channel {n.channel_name} (network {n.name})
                  </h3>
                  <ConfigDiff diff={n.diff as Array<{ path: string; before?: unknown; after?: unknown }>} />
                </div>
              ))}
              <p>Orderers stopped and restarted: {dry.data.orderers.map((o) => o.name).join(', ')}.</p>
              {!confirming ? (
                <button type="button" onClick={() => setConfirming(true)}>
                  Migrate…
                </button>
              ) : (
                <div role="group" aria-label="Confirm the migration">
                  <p role="alert">
                    This is one way: a SmartBFT channel cannot go back to etcdraft. The channels go into maintenance (no transactions meanwhile), and every orderer ({dry.data.orderers.map((o) => o.name).join(', ')}) is
                    stopped, backed up and restarted twice. If a phase fails, the backups are restored and the channels stay on etcdraft.
                  </p>
                  <button type="button" className="primary" onClick={() => run.mutate()}>
                    Migrate now
                  </button>{' '}
                  <button type="button" onClick={() => setConfirming(false)}>
                    Cancel
                  </button>
                </div>
              )}
            </div>
          ) : null}
          {!run.isIdle && progress.data ? <Progress phase={progress.data.phase} status={progress.data.status} steps={progress.data.steps} /> : null}
          {run.isPending && !progress.data ? <p role="status">Migrating: starting…</p> : null}
          {failed ? (
            <FailedMigration phase={String(failed.context.phase ?? 'unknown')} message={failed.message} record={failed.context} onResume={() => run.mutate()} onStartOver={startOver} />
          ) : run.error ? (
            <Refusal error={run.error} />
          ) : null}
          {run.data ? (
            <p role="status" className="verdict valid" data-testid="migration-outcome">
              Migrated from {run.data.from} to {run.data.to}: channel{run.data.networks.length > 1 ? 's' : ''} {run.data.networks.map((n) => n.channel_name).join(', ')} now order with SmartBFT.
            </p>
          ) : null}
        </div>
      )}
    </section>
  );
}
