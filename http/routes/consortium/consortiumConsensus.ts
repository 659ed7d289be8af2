// A consortium network's consensus migrated from etcdraft to smartbft (issue 37 item 7), with a
// dry run, and the progress of the network's last migration as recorded in the event store (any server answers)
// (application/consortium/consortiumConsensusMigrate.ts; docs/consortium.md "Migrating to SmartBFT").
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { IdParam } from '../schemas.ts';
import { NotFoundError } from '../../../domain/shared/errors.ts';
import { channelsBody, MIGRATION_WAIT_SECONDS, migrateConsensus, migrationProgress } from '../../../application/consortium/consortiumConsensusMigrate.ts';
import { consortiumNetworkOr404 } from '../../../application/consortium/consortiumChannelAccess.ts';
import { SmartBftOptionFields } from './consortiumNetworks.ts';

const tags = ['consortium networks'];
const Diff = Type.Array(Type.Object({ path: Type.String(), before: Type.Unknown(), after: Type.Unknown() }));
const Progress = {
  phase: Type.String({ description: 'checks, maintenance, backup, switch, restart, normal, rollback or done' }),
  steps: Type.Array(Type.String(), { description: 'what was done, in order' }),
};

const MigrationChannel = Type.Object({
  network_id: Type.Integer(), channel_name: Type.String(),
  consensus: Type.String({ description: 'etcdraft, smartbft, or unknown (a rollback that did not complete: its steps say where it stopped)' }),
  state: Type.String({ description: 'normal (STATE_NORMAL), maintenance (STATE_MAINTENANCE) or unknown' }),
});
const PeerNotRolledBack = Type.Object({ node_id: Type.Integer(), name: Type.String(), channel: Type.String(), reason: Type.String({ description: 'why it was not rolled back (e.g. it runs on the docker engine)' }) });

export const consortiumConsensusRoutes = [
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/consensus/migrate',
    summary: 'Migrate the network\'s channel (and every channel its orderers order) from etcdraft to smartbft on Fabric 3.x: maintenance, orderers stopped and backed up, Type BFT with the same consenters, orderers restarted, maintenance left; rules checked first; dry_run answers the diff only; a failure restores the backups and leaves maintenance on etcdraft; after a failure in the last phase once some channel runs BFT, a new POST resumes it (the remaining channels leave maintenance on BFT); after a failure whose rollback did not complete (an orderer that would not start on its restored data), or whose server died during the rollback, a new POST takes the rollback up again (backups put back again, orderers started, channels out of maintenance on etcdraft) and answers 409 MIGRATION_FAILED saying whether it completed',
    tags, permission: 'NETWORK_UPDATE', params: IdParam,
    query: Type.Object({ dry_run: Type.Optional(Type.Boolean({ description: 'check the rules and answer each channel\'s diff (etcdraft to BFT); change nothing' })) }, { additionalProperties: false }),
    body: Type.Object({
      to: Type.String({ maxLength: 20, description: 'smartbft (the only transition Fabric supports)' }),
      smartBftOptions: Type.Optional(Type.Object(SmartBftOptionFields, { additionalProperties: false, description: 'the channels\' SmartBFT options; each left out takes its default (docs/consortium.md)' })),
      waitSeconds: Type.Optional(Type.Integer({ ...MIGRATION_WAIT_SECONDS, description: 'how long each waiting step may take before the migration (or its rollback) gives up on it: an orderer healthy after its start, a channel config update ordered, a peer back on the restored chain; 30 to 3600 s, default 180 (raise it for slow hosts or clusters pulling images, lower it to hear of an orderer that will not start sooner); also read when a POST resumes a migration or takes a rollback up again' })),
    }, { additionalProperties: false }),
    responses: {
      200: {
        description: 'migrated (or dry_run: the checks passed, nothing changed)',
        schema: Type.Object({
          status: Type.String({ description: 'migrated or dry_run' }), from: Type.String(), to: Type.String(),
          networks: Type.Array(Type.Object({ network_id: Type.Integer(), name: Type.String(), channel_name: Type.String(), sequence: Type.Integer(), diff: Diff })),
          orderers: Type.Array(Type.Object({ node_id: Type.Integer(), name: Type.String() })),
          steps: Type.Array(Type.String()),
        }),
      },
      400: { description: 'rule migration-target (to is not smartbft), migration-bft-size (fewer than 3f + 1 = 4 consenters), migration-engine (an orderer on a node host that is not registered); invalid SmartBFT options' },
      404: { description: 'no such network' },
      409: { description: 'rule migration-from-raft (not etcdraft), migration-v3-nodes (MIGRATION_NODES_BELOW_V3, names the nodes below Fabric 3.0), migration-v3-capability (channel capability not V3_0), migration-state (a channel in maintenance, a consenter this service does not hold), NODES_DOWN; MIGRATION_IN_PROGRESS; MIGRATION_FAILED (names the phase; the backups were restored, the peers past the restored chain rolled back to it with peer node rollback, and the channels left maintenance on etcdraft; context.peers_not_rolled_back names any peer that could not be; context.channels names how each channel was left: etcdraft in STATE_NORMAL after a rollback, or, after a failure in phase normal once some channel left maintenance on BFT, smartbft normal for those and smartbft maintenance for the others, the backups kept and a new POST resuming it); SIGNATURES_MISSING' },
    },
    async handler(input) {
      const r = await migrateConsensus(input, input.params.id, { to: input.body.to, smartBftOptions: input.body.smartBftOptions, dryRun: input.query.dry_run, ...(input.body.waitSeconds !== undefined ? { timeoutMs: input.body.waitSeconds * 1000 } : {}) });
      return {
        body: {
          status: r.status, from: r.from, to: r.to, steps: r.steps,
          networks: r.networks.map((n) => ({ network_id: n.networkId, name: n.name, channel_name: n.channelName, sequence: n.sequence, diff: n.diff })),
          orderers: r.orderers.map((o) => ({ node_id: o.nodeId, name: o.name })),
        },
      };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id/consensus/migration', summary: 'The progress of the network\'s last consensus migration as recorded in the event store (phase and steps, while it runs and after; every server of the database answers the same; a server that died mid-way leaves it running in the phase where it stopped)', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: {
      200: {
        description: 'the migration',
        schema: Type.Object({
          network_ids: Type.Array(Type.Integer()), migration_id: Type.String(),
          status: Type.String({ description: 'running, done or failed (phase rollback: the backups were restored; phase normal: some channel runs BFT, a new POST .../migrate resumes it)' }),
          ...Progress, orderer_ids: Type.Array(Type.Integer()), started_at: Type.String(), ended_at: Type.Union([Type.String(), Type.Null()]),
          channels: Type.Array(MigrationChannel, { description: 'each channel as the migration left it, recorded when it ended (failed or done); empty while it runs' }),
          peers_not_rolled_back: Type.Array(PeerNotRolledBack, { description: 'the peers the rollback of a failed migration could not bring back to the restored etcdraft chain, as the 409 MIGRATION_FAILED named them (empty when none)' }),
        }),
      },
      404: { description: 'no such network, or no migration of it was recorded' },
    },
    async handler({ deps, params }) {
      await consortiumNetworkOr404(deps, params.id);
      const p = await migrationProgress(deps, params.id);
      if (!p) throw new NotFoundError('Consensus migration', `of network ${params.id}`);
      return {
        body: {
          migration_id: p.migrationId, network_ids: p.networkIds, orderer_ids: p.ordererIds, status: p.status, phase: p.phase, steps: p.steps, started_at: p.startedAt, ended_at: p.endedAt,
          channels: channelsBody(p.channels),
          peers_not_rolled_back: p.peersNotRolledBack.map((x) => ({ node_id: x.nodeId, name: x.name, channel: x.channel, reason: x.reason })),
        },
      };
    },
  }),
];
