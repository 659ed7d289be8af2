// The composition root: the one place where adapters are wired into ports.
import { createFileAuditAnchor } from '../adapters/audit/fileAuditAnchor.ts';
import { commandLineInput } from '../application/commands.ts';
import { signAuditCheckpoint } from '../application/audit/auditVerify.ts';
import pg from 'pg';
import { pino } from 'pino';
import { createHmac, hkdfSync, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import http, { type Server } from 'node:http';
import { engineEnv, type Config } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../adapters/postgres/embeddedPostgres.ts';
import { migrate } from '../adapters/postgres/migrate.ts';
import { postgresIdAllocator } from '../adapters/postgres/idAllocator.ts';
import { postgresEventStore } from '../adapters/eventstore/postgresEventStore.ts';
import { backfillEventBodies } from '../adapters/eventstore/postgresBodyBackfill.ts';
import type { EventStore } from '../domain/shared/eventStore.ts';
import { createProjector, PROJECTED_CHANNEL, type Projector } from '../projections/projector.ts';
import { openNotices, type Notices } from '../adapters/postgres/notices.ts';
import { allProjections, typesReadModelsNeed } from '../projections/index.ts';
import { auditOnlyTypesToWithhold } from '../domain/audit/auditEntry.ts';
import { createSagaRunner } from '../sagas/sagaRunner.ts';
import { createDrain } from '../http/drain.ts';
import { createApp } from '../http/app.ts';
import { clientErrorHandler } from '../http/errors.ts';
import { allRoutes } from '../http/routes/index.ts';
import type { AppDeps, Logger } from '../application/deps.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/pagination.ts';
import { createAccessControl } from '../http/auth/accessControl.ts';
import { flushRefusalAggregates, REFUSAL_FLUSH_EVERY_MS } from '../http/auth/auditThrottle.ts';
import { createVerifiedCredentials, isCredentialStream } from '../http/auth/verifiedCredentials.ts';
import { observedEventStore } from '../adapters/eventstore/observedEventStore.ts';
import { postgresLoginGuard } from '../adapters/postgres/loginGuard.ts';
import { postgresSessionStore } from '../adapters/postgres/sessionStore.ts';
import { createPasswordHasher } from '../adapters/security/passwordHasher.ts';
import { generateApiKey, hashApiKey, parseApiKey } from '../adapters/security/apiKeyCodec.ts';
import { currentSettings, type CurrentSettings } from '../projections/settings.ts';
import { SETTINGS_STREAM } from '../domain/settings/settings.ts';
import { allSagas } from '../sagas/index.ts';
import { bootstrapFirstAdmin, type FirstAdmin } from './bootstrap.ts';
import { failInterruptedCreations } from '../application/creations.ts';
import { createEvmDeps } from '../adapters/evm/evmDeps.ts';
import { postgresNodeObservations } from '../adapters/postgres/nodeObservations.ts';
import { byPlatform } from '../domain/nodes/nodeOperations.ts';
import { evmNodeOperations } from '../sagas/evm/evmNodeTarget.ts';
import { consortiumNodeOperations } from '../sagas/consortium/consortiumNodeOperations.ts';
import { ledgerXNodeOperations } from '../sagas/ledgerx/ledgerxNodeOperations.ts';
import type { HealthSettings } from '../sagas/nodeHealth.ts';
import { createLedgerXRuntime } from '../adapters/ledgerx/ledgerxRuntime.ts';
import { fabricXLedger } from '../adapters/ledgerx/fabricXLedger.ts';
import { createConsortiumDeps } from '../adapters/consortium/consortiumDeps.ts';
import { fabricConsortiumChannels } from '../adapters/consortium/consortiumChannels.ts';
import { nodeLogsUpgradeHandler } from '../http/nodeLogsSocket.ts';
import { openKeyServices } from '../adapters/keyProviders/registryStartup.ts';
import { deploymentIdentity } from '../adapters/postgres/deploymentIdentity.ts';
import { resolveKeyEncryptionKey } from '../adapters/keyProviders/keyEncryptionKeyFile.ts';
import { createHttpOutbound } from '../adapters/outbound/httpOutbound.ts';
import { createSecretBox } from '../adapters/outbound/sealedSecrets.ts';
import { createRemoteDockerProbe } from '../adapters/engines/remoteDockerHost.ts';
import { createNodeHostDirectory } from '../adapters/engines/nodeHostDirectory.ts';
import { createHostProbe } from '../adapters/engines/kubernetesCluster.ts';
import { clusterNodePorts, createHostEngines, type HostEngines } from '../adapters/engines/hostEngines.ts';
import { nodeImagesFromEnv } from '../adapters/engines/nodeImages.ts';
import { checkCommitterDatabase } from '../adapters/ledgerx/committerDatabase.ts';
import { ledgerXDatabasePasswordContext, type LedgerXCommitterDatabase } from '../domain/ledgerx/ledgerxNode.ts';
import { ledgerXBackupPart } from '../adapters/ledgerx/ledgerxBackup.ts';
import { hostedNodesBackupPart } from '../adapters/engines/hostedNodeBackup.ts';
import { createWebhookDeliveryWorker } from '../sagas/webhookDelivery.ts';
import { createSmtpEmailSender } from '../adapters/notifications/smtpEmailSender.ts';
import type { NotifierDeps } from '../domain/notifications/notifier.ts';
import { createHostResources } from '../adapters/system/hostResources.ts';
import { createResourceMonitor } from '../sagas/resourceMonitor.ts';
import { createBlockFeed } from '../sagas/blockFeed.ts';
import { createEvmBlockSource } from '../adapters/evm/evmBlockSource.ts';
import { watchSlowQueries } from '../adapters/postgres/slowQueryWatch.ts';
import { ACTIVITY_CSV_CONTENT_TYPE, activityCsv, activityCsvFileName } from '../adapters/reports/activityCsv.ts';
import { createKeyEncryption } from '../adapters/keyProviders/keyEncryption.ts';
import { createBackupServices } from '../adapters/backups/backupServices.ts';
import { backupCatalog } from '../projections/backups.ts';
import { createServiceMetrics } from '../adapters/metrics/serviceMetrics.ts';
import { serviceGaugeSources } from '../adapters/metrics/serviceGaugeSources.ts';
import { instrumentedEventStore } from '../adapters/metrics/instrumentedEventStore.ts';
import { instrumentedObservations, instrumentedOperations } from '../adapters/metrics/instrumentedProbes.ts';
import { createMetricsStack } from './metricsStack.ts';
import { createComposePluginRuntime } from '../adapters/plugins/composePluginRuntime.ts';
import { fileURLToPath } from 'node:url';
import { USER_ACCESS_PDF_CONTENT_TYPE, userAccessPdf, userAccessPdfFileName } from '../adapters/reports/userAccessPdf.ts';
import { startSharingListener } from './sharingListener.ts';
import { createOidcRelyingParty } from '../adapters/security/oidcRelyingParty.ts';
import { postgresLeases, shardedWork } from '../adapters/postgres/leases.ts';
import { NODE_SHARDS, nodeShardLease } from '../sagas/nodeShards.ts';
import { WORK_PIECES, workPieceLease, type WorkPiece } from '../sagas/workPieces.ts';
import type { OidcRelyingParty } from '../domain/users/ports.ts';

export function createLogger(level: string) {
  return pino({
    level,
    base: { service: 'lnm' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Secrets never reach a log line, even if a careless caller passes them.
    redact: {
      paths: ['password', '*.password', 'token', '*.token', 'secret', '*.secret', 'privateKey', '*.privateKey', 'authorization', '*.authorization', 'cookie', '*.cookie', 'secretAccessKey', '*.secretAccessKey', 'apiKey', '*.apiKey', 'clientSecret', '*.clientSecret', 'codeVerifier', '*.codeVerifier', 'access_token', '*.access_token', 'id_token', '*.id_token', 'refresh_token', '*.refresh_token'],
      censor: '[redacted]',
    },
  });
}

export interface Database {
  pool: pg.Pool;
  url: string;
  embedded: EmbeddedPostgresHandle | null;
  close(): Promise<void>;
}

export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  let embedded: EmbeddedPostgresHandle | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dir: path.join(config.dataDir, 'postgres'), log: (m) => log.info({}, m) });
    url = embedded.url;
    log.info({ port: embedded.port, dataDir: embedded.dataDir }, 'embedded PostgreSQL started');
  }
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  pool.on('error', (err) => log.error({ err: err.message }, 'idle database connection failed'));
  return {
    pool,
    url,
    embedded,
    async close() {
      await pool.end().catch(() => {});
      await embedded?.stop();
    },
  };
}

export async function openEventStore(config: Config, db: Database, notices?: Notices): Promise<EventStore> {
  if (config.eventStore === 'eventstoredb') {
    const { eventStoreDbEventStore } = await import('../adapters/eventstore/eventStoreDbEventStore.ts');
    return eventStoreDbEventStore(config.eventStoreUrl!);
  }
  return postgresEventStore(db.pool, notices ? { notices } : { url: db.url });
}

function instanceId(config: Config): string {
  if (config.instanceId) return config.instanceId;
  const file = path.join(config.dataDir, 'instance-id');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const id = randomUUID();
  writeFileSync(file, id + '\n', { mode: 0o600 });
  return id;
}

/** The OpenID relying party, discovered now when the provider answers; an unreachable provider
 * does not stop the start (password login and API keys keep working): sign-in retries discovery
 * and answers 503 OIDC_UNAVAILABLE meanwhile. */
async function openOidc(config: Config, keyEncryptionKey: string, log: Logger): Promise<OidcRelyingParty | null> {
  if (!config.oidc) return null;
  const { clientSecret, ...shown } = config.oidc;
  // The pending-login cookie's key: derived, so the KEK itself never seals anything a browser holds.
  const sealingKey = Buffer.from(hkdfSync('sha256', keyEncryptionKey, 'lnm', 'oidc pending login cookie', 32));
  const rp = createOidcRelyingParty({ ...shown, clientSecret, sealingKey });
  try {
    await rp.ready();
    log.info({ issuer: shown.issuer, clientId: shown.clientId, scopes: shown.scopes, audience: shown.audience }, 'OpenID provider discovered');
  } catch (err) {
    log.warn({ issuer: shown.issuer, err: (err as Error).message }, 'OpenID provider not reachable at start: OIDC sign-in answers 503 OIDC_UNAVAILABLE until it is (discovery is retried at each sign-in)');
  }
  return rp;
}

export interface RunningServer {
  url: string;
  /** Whether this start created the first ADMIN, and with a generated password. */
  firstAdmin: FirstAdmin;
  deps: AppDeps;
  projector: Projector;
  close(): Promise<void>;
}

export async function startServer(config: Config, log = createLogger(config.logLevel)): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const db = await openDatabase(config, log);
  const migrated = await migrate(db.pool);
  if (migrated.applied.length) log.info({ applied: migrated.applied }, 'migrations applied');
  // Events written before bodies were stored get theirs, so verify hashes them in PostgreSQL. In
  // the background: an old log does not hold up the start, and verify checks a row without a
  // body the old way meanwhile.
  let closingBackfill = false;
  const backfilling = backfillEventBodies(db.pool, { stop: () => closingBackfill }).then(
    (r) => {
      if (r.filled) log.info({ filled: r.filled }, 'event bodies backfilled');
      if (r.unmatched) log.warn({ unmatched: r.unmatched, firstPosition: r.firstUnmatched }, 'events whose columns do not hash to their stored hash were left without a body; verify names the first');
    },
    (err: Error) => {
      if (!closingBackfill) log.warn({ err: err.message }, 'event body backfill stopped; verify checks rows without a body the old way');
    },
  );
  // Before anything else runs: a wrong KEY_ENCRYPTION_KEY must stop the start, not corrupt keys.
  const keys = await openKeyServices({ keyEncryptionKey: config.keyEncryptionKey, dataDir: config.dataDir, pool: db.pool, log: (o, m) => log.info(o, m), vaultImage: config.vaultImage });
  // One id for every replica on this database (the instance id is per replica): the kubernetes
  // engine marks its objects with it, so another deployment sharing a cluster's namespace and
  // prefix is told apart (docs/kubernetes.md "Two deployments on one cluster").
  const deployment = await deploymentIdentity(db.pool);
  if (deployment.created) log.info({ deploymentId: deployment.id }, 'deployment id made (first start on this database)');
  // Read-your-writes across instances: each projector notifies the position it committed (the
  // shared checkpoint); hearing another's, this instance's caches answer from the tables until its
  // projector has caught up (at once: it reads those events, it does not apply them again). See
  // docs/scaling.md.
  let heard: (position: number) => void = () => {};
  const notices = await openNotices(db.url, { log: (m, e) => log.warn(e ?? {}, m) });
  await notices.on(PROJECTED_CHANNEL, (payload) => {
    const position = Number(payload);
    if (Number.isSafeInteger(position)) heard(position);
  });
  const rawStore = await openEventStore(config, db, notices);
  // The service's own metrics (GET /metrics); gauges are read at scrape time.
  let sagaNames: string[] = [];
  const metrics = createServiceMetrics(serviceGaugeSources(db.pool, rawStore, { projections: allProjections.map((p) => p.name), get sagas() { return sagaNames; } }));
  // Basic credentials and API keys verified a moment ago are kept (http/auth/verifiedCredentials.ts);
  // an append of this server to a user or API key stream closes that cache until the projections
  // have caught up with it, before the command that made it answers.
  const verified = createVerifiedCredentials();
  let projectorOfCredentials: Projector | null = null;
  const store = observedEventStore(instrumentedEventStore(rawStore, metrics), async (streamId, append) => {
    if (!isCredentialStream(streamId)) return append();
    const release = verified.hold();
    try {
      const result = await append();
      await projectorOfCredentials?.waitFor(result.lastPosition).catch(() => {});
      return result;
    } finally {
      release();
    }
  });
  // performance.query.slow: queries through the pool slower than the slowQueryMs setting.
  let slowQueryMs = (await currentSettings(db.pool)).general.slowQueryMs;
  const slowBudget = setInterval(() => void currentSettings(db.pool).then((s) => (slowQueryMs = s.general.slowQueryMs)).catch(() => {}), 10_000);
  slowBudget.unref();
  if (config.resourceMonitor ?? true) watchSlowQueries(db.pool, {
    budgetMs: () => slowQueryMs,
    onSlow(q) {
      const at = new Date().toISOString();
      store.append('system-query-monitor', 'any', [{ id: randomUUID(), type: 'SlowQueryDetected', data: { ...q, at } }], { timestamp: at, actor: null })
        .catch((err: Error) => log.warn({ err: err.message }, 'recording a slow query failed'));
    },
  });
  // Any instance's settings change empties it once this projector has the event (onApplied below).
  let settingsCache: { value: CurrentSettings; until: number } | null = null;
  let settingsGeneration = 0;
  const projector = createProjector({ pool: db.pool, store, projections: allProjections, log: (m, e) => log.warn(e ?? {}, m), notices });
  // Another instance's committed position: until this projector has caught up, its caches
  // (fresh() false, behind() true) answer from the tables; the catch-up tells them which changed.
  heard = (position) => projector.noticed?.(position);
  projector.onApplied?.((batch) => {
    if (batch === null || batch.some((e) => e.streamId === SETTINGS_STREAM)) {
      settingsCache = null;
      settingsGeneration++;
    }
    // Credential events of any instance (this one's are held from before their append, above).
    if (batch === null || batch.some((e) => isCredentialStream(e.streamId))) verified.streamChanged('users');
  });
  await projector.start();
  projectorOfCredentials = projector;
  // Node hosts' engines are made once the secret box exists (below): their client keys are sealed.
  let hostEngines: HostEngines = async () => null;
  const evm = await createEvmDeps({
    pool: db.pool,
    dataDir: config.dataDir,
    keys,
    hostEngine: (hostId) => hostEngines(hostId),
    env: { ...process.env, ...engineEnv(config), LNM_NODE_ENGINE: config.nodeEngine, LNM_EVM_CLIENT: config.evmClient, ...(config.besuImage ? { LNM_IMAGE_BESU: config.besuImage } : {}), ...(config.anvilImage ? { LNM_IMAGE_ANVIL: config.anvilImage } : {}), ...(config.keyEncryptionKey ? { KEY_ENCRYPTION_KEY: config.keyEncryptionKey } : {}) },
  });
  const consortium = await createConsortiumDeps({
    pool: db.pool, store, dataDir: config.dataDir, keys, channels: fabricConsortiumChannels(), engine: config.nodeEngine, chaincodePortFrom: config.chaincodePortFrom, chaincodeHost: config.chaincodeHost, hostEngine: (hostId) => hostEngines(hostId),
    env: { ...process.env, ...engineEnv(config), ...(config.keyEncryptionKey ? { KEY_ENCRYPTION_KEY: config.keyEncryptionKey } : {}) },
  });
  // The health monitor's last reading of each node (an observation cache, not events).
  const observations = postgresNodeObservations(db.pool);
  // The key was resolved (or generated) by openKeyServices above; this reads the same one, once.
  const keyEncryptionKey = resolveKeyEncryptionKey({ env: { KEY_ENCRYPTION_KEY: config.keyEncryptionKey ?? undefined }, dataDir: config.dataDir }).key;
  // A ledgerX committer's database password: derived from the key encryption key and the group's id, never stored.
  const dbAddress = new URL(db.url);
  const ledgerx = {
    runtime: createLedgerXRuntime({ dataDir: config.dataDir, env: { ...process.env, ...engineEnv(config) }, hostEngine: (hostId) => hostEngines(hostId) }),
    ledger: fabricXLedger(),
    joinTimeoutMs: (config.ledgerXJoinTimeoutSeconds ?? 240) * 1000,
    engine: config.nodeEngine === 'docker' ? ('docker' as const) : ('process' as const),
    committerDatabasePassword: (groupId: number) => createHmac('sha256', keyEncryptionKey).update(`ledgerx-committer-database-${groupId}`).digest('base64url'),
    checkDatabase: checkCommitterDatabase,
    database: { host: dbAddress.hostname || '127.0.0.1', port: Number(dbAddress.port || 5432) },
  };
  // Where a committer's services reach its database. One given as a connection string keeps its
  // password sealed in the node's record. One the service made lives in the service's own
  // PostgreSQL wherever that is now (an embedded one changes port at each start), and its role's
  // password is set again from the derived one: `lnm restore` makes the role without it.
  const committerDatabaseAccess = async (groupId: number, database: LedgerXCommitterDatabase) => {
    if (database.external) return { host: database.host, port: database.port, name: database.name, user: database.user, password: await secrets.open(database.sealedPassword!, ledgerXDatabasePasswordContext(groupId)) };
    const password = ledgerx.committerDatabasePassword(groupId);
    if (/^lnm_ledgerx_(?:[0-9a-f]{8}_)?committer_\d+$/.test(database.user)) {
      await db.pool.query(`ALTER ROLE ${database.user} LOGIN PASSWORD '${password.replace(/'/g, "''")}'`).catch((err: Error) => log.warn({ database: database.name, error: err.message.split(password).join('<redacted>') }, 'setting the ledgerX committer database role\'s password failed'));
    }
    return { host: ledgerx.database.host, port: ledgerx.database.port, name: database.name, user: database.user, password };
  };
  const operationsFor = byPlatform({
    EVM: evmNodeOperations(store, evm.runtime),
    CONSORTIUM: consortiumNodeOperations(consortium.runtime, consortium.credentials, { store, servers: consortium.chaincodes.servers }),
    LEDGERX: ledgerXNodeOperations({ store, runtime: ledgerx.runtime, credentials: consortium.credentials, newId: randomUUID,
      committerDatabaseAccess,
      // Names made by the service from its database's name and a node id only
      // (application/ledgerx/ledgerxCommitterCreate.ts; committers made before had no hash part).
      async dropCommitterDatabase(database) {
        const made = /^lnm_ledgerx_(?:[0-9a-f]{8}_)?committer_\d+$/;
        if (!made.test(database.name) || !made.test(database.user)) return;
        await db.pool.query(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
        await db.pool.query(`DROP ROLE IF EXISTS ${database.user}`);
      },
    }),
  });
  const nodeSagas = {
    operationsFor: instrumentedOperations(operationsFor, metrics),
    observations: instrumentedObservations(observations, metrics),
    // Read at most once a second (every probe asks): a changed interval or threshold applies within a second.
    healthSettings: (() => {
      let last: { at: number; value: Promise<HealthSettings> } | null = null;
      return () => {
        if (last && Date.now() - last.at < 1000) return last.value;
        const value = currentSettings(db.pool).then(({ general: s }): HealthSettings => ({ intervalSeconds: s.nodeHealthCheckIntervalSeconds, threshold: s.nodeDowntimeThreshold, readingSeconds: s.nodeReadingIntervalSeconds }));
        value.catch(() => (last = null));
        last = { at: Date.now(), value };
        return value;
      };
    })(),
  };
  const nextId = postgresIdAllocator(db.pool);
  // Backup target secrets are sealed under the same KEY_ENCRYPTION_KEY as provider secrets.
  const backups = createBackupServices({
    pool: db.pool,
    dataDir: config.dataDir,
    encryption: createKeyEncryption(keyEncryptionKey),
    includeAuditLogs: async () => (await currentSettings(db.pool)).audit.include_in_backups,
    auditOnlyEventTypes: auditOnlyTypesToWithhold(typesReadModelsNeed()),
    eventStoreKind: store.kind,
    stallSeconds: config.backupStallSeconds,
    parts: [ledgerXBackupPart({ pool: db.pool, dataDir: config.dataDir, committerAccess: committerDatabaseAccess }), hostedNodesBackupPart({ pool: db.pool, hostEngines: (hostId) => hostEngines(hostId) })],
  });
  const backupSagas = { services: backups, catalog: backupCatalog(db.pool, nextId), targetCheckSeconds: () => config.backupTargetCheckSeconds ?? 300 };
  const instance = { id: instanceId(config), version: config.version };
  const outbound = createHttpOutbound({ allowPrivateTargets: config.allowPrivateTargets ?? false });
  const secrets = createSecretBox(keyEncryptionKey);
  const oidc = await openOidc(config, keyEncryptionKey, log);
  const notifier: NotifierDeps = { email: createSmtpEmailSender({ allowPrivateTargets: config.allowPrivateTargets ?? false }), outbound, secrets, serviceTag: config.serviceTag ?? 'LNM', instance };
  const webhookDelivery = createWebhookDeliveryWorker({
    pool: db.pool, store, outbound, secrets, instanceId: instance.id, log: (m, e) => log.info(e ?? {}, m),
    failureThreshold: async () => (await currentSettings(db.pool)).general.webhookFailureThreshold,
  });
  const hostProbe = createHostProbe(createRemoteDockerProbe());
  const hostDirectory = createNodeHostDirectory(db.pool, secrets);
  hostEngines = createHostEngines({ directory: hostDirectory, dataDir: config.dataDir, namePrefix: engineEnv(config).LNM_DOCKER_PREFIX, deploymentId: deployment.id, copyStallMs: (config.backupStallSeconds ?? 120) * 1000, images: nodeImagesFromEnv({ ...process.env, ...(config.anvilImage ? { LNM_IMAGE_ANVIL: config.anvilImage } : {}), ...(config.besuImage ? { LNM_IMAGE_BESU: config.besuImage } : {}), ...engineEnv(config) }) });
  const hostSagas = {
    probe: hostProbe, directory: hostDirectory, checkSeconds: () => config.hostCheckSeconds ?? 30,
    orphans: { nodePorts: clusterNodePorts((hostId) => hostEngines(hostId)), graceSeconds: () => config.clusterOrphanGraceSeconds ?? 600 },
  };
  const sagaList = allSagas({ store, keys, nodes: nodeSagas, webhooks: { pool: db.pool, instance, wake: () => webhookDelivery.wake() }, notifications: { pool: db.pool, notifier }, backups: backupSagas, hosts: hostSagas });
  sagaNames = sagaList.map((s) => s.name);
  // Several instances on one database: each piece of work runs on the one instance holding its
  // lease, and the fencing check runs before every saga batch and timer (a health probe is a
  // timer), so it asks the lease's own clock, not the database: a query per probe would double a
  // probe's cost.
  const leases = postgresLeases(db.pool, instance.id);
  const workTtlMs = (config.workLeaseSeconds ?? 9) * 1000;
  const workLog = (m: string, e?: Record<string, unknown>) => log.info({ instance: instance.id, ...e }, m);
  // Node work (lifecycle, health probes) is spread over the live instances by shard
  // (sagas/nodeShards.ts): a runner per held shard, fenced by that shard's lease.
  const shardRunners = new Map<number, ReturnType<typeof createSagaRunner>>();
  const nodeWork = shardedWork(db.pool, leases, instance.id, { shards: NODE_SHARDS, leaseName: nodeShardLease, ttlMs: workTtlMs }, {
    async start(shard) {
      const runner = createSagaRunner({ pool: db.pool, store, sagas: sagaList.filter((s) => s.shard === shard), log: (m, e) => log.info(e ?? {}, m), fence: async () => nodeWork.valid(shard) });
      shardRunners.set(shard, runner);
      await runner.start();
    },
    async stop(shard) {
      const runner = shardRunners.get(shard);
      shardRunners.delete(shard);
      await runner?.stop();
    },
  }, workLog);
  const resourceMonitor = createResourceMonitor({
    store, host: createHostResources(), dataDir: config.dataDir, newId: randomUUID, log: (m, e) => log.warn(e ?? {}, m),
    async thresholds() {
      const s = (await currentSettings(db.pool)).general;
      return { intervalSeconds: s.resourceCheckIntervalSeconds, diskPercent: s.diskSpaceWarningPercent, cpuPercent: s.cpuHighPercent, memoryPercent: s.memoryHighPercent };
    },
  });
  // Inert (one cheap query a second) until a webhook subscribes to blocks or transactions.
  const blockFeed = createBlockFeed({ pool: db.pool, store, source: createEvmBlockSource(), log: (m, e) => log.warn(e ?? {}, m) });
  let serviceAddress = '';
  const metricsPiece = WORK_PIECES.indexOf('metrics-stack');
  const metricsStack = createMetricsStack({ config, pool: db.pool, store, operationsFor, serviceAddress: () => serviceAddress, instanceId: instance.id, holds: () => pieceWork.valid(metricsPiece), applied: (l) => projector.onApplied?.(l) ?? (() => {}), log: (o, m) => log.warn(o, m) });
  // The other background work, in pieces (sagas/workPieces.ts), spread over the live instances
  // like the node shards (the same fair-share rounds): per held piece, a saga runner for its sagas
  // (fenced by its lease) and its loop, if it has one.
  const loops: Partial<Record<WorkPiece, { start(): Promise<void> | void; stop(): Promise<void> }>> = {
    webhooks: webhookDelivery,
    'block-feed': blockFeed,
    'resource-monitor': (config.resourceMonitor ?? true) ? resourceMonitor : undefined,
    'metrics-stack': { start: () => metricsStack.own(), stop: () => metricsStack.disown() },
  };
  const pieceRunners = new Map<number, ReturnType<typeof createSagaRunner>>();
  const pieceWork = shardedWork(db.pool, leases, instance.id, { shards: WORK_PIECES.length, leaseName: (k) => workPieceLease(WORK_PIECES[k]), ttlMs: workTtlMs }, {
    async start(k) {
      const piece = WORK_PIECES[k];
      const pieceSagas = sagaList.filter((s) => s.piece === piece);
      if (pieceSagas.length) {
        const runner = createSagaRunner({ pool: db.pool, store, sagas: pieceSagas, log: (m, e) => log.info(e ?? {}, m), fence: async () => pieceWork.valid(k) });
        pieceRunners.set(k, runner);
        await runner.start();
      }
      await loops[piece]?.start();
    },
    async stop(k) {
      await loops[WORK_PIECES[k]]?.stop();
      const runner = pieceRunners.get(k);
      pieceRunners.delete(k);
      await runner?.stop();
    },
  }, workLog);
  await pieceWork.start();
  await nodeWork.start();
  if (!pieceWork.held().includes(metricsPiece)) await metricsStack.standDown();
  const passwords = createPasswordHasher();
  const deps: AppDeps = {
    config: {
      edition: config.edition,
      version: config.version,
      instanceId: instance.id,
      deploymentId: deployment.id,
      bodyLimit: config.bodyLimit,
      defaultPageSize: DEFAULT_PAGE_SIZE,
      maxPageSize: MAX_PAGE_SIZE,
      secureCookies: config.secureCookies,
      allowedOrigins: config.allowedOrigins ?? [],
      signInBodyLimit: config.signInBodyLimit,
      unauthenticatedBodySeconds: config.unauthenticatedBodySeconds,
    },
    pool: db.pool,
    store,
    projector,
    log,
    clock: () => new Date(),
    newId: randomUUID,
    nextId,
    startedAt: new Date(),
    work: () => [...pieceWork.held().map((k) => workPieceLease(WORK_PIECES[k])), ...nodeWork.held().map(nodeShardLease)],
    evm,
    consortium,
    ledgerx,
    observations,
    metrics,
    metricsStack: metricsStack.deps,
    plugins: createComposePluginRuntime({ dataDir: config.dataDir, namePrefix: config.dockerPrefix, shippedDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'plugins', 'available') }),
    keys,
    outbound,
    secrets,
    auditAnchor: createFileAuditAnchor({ dataDir: config.dataDir, keyEncryptionKey, ...(config.auditWitnessUrl ? { witnessUrl: config.auditWitnessUrl } : {}) }),
    wakeWebhookDeliveries: () => webhookDelivery.wake(),
    notifier,
    backups,
    hosts: { probe: hostProbe, directory: hostDirectory, nodePorts: clusterNodePorts((hostId) => hostEngines(hostId)) },
    reports: {
      activityCsv: async (entries, period) => ({ body: await activityCsv(entries), fileName: activityCsvFileName(period.start, period.end), contentType: ACTIVITY_CSV_CONTENT_TYPE }),
      async userAccessPdf(input) {
        return { body: await userAccessPdf(input), fileName: userAccessPdfFileName(input.user.username, input.period.start, input.period.end), contentType: USER_ACCESS_PDF_CONTENT_TYPE };
      },
    },
    security: {
      sessions: postgresSessionStore(db.pool),
      passwords,
      apiKeys: {
        generate: generateApiKey,
        hashOf(presented) {
          const parsed = parseApiKey(presented);
          return parsed.ok ? hashApiKey(parsed.key) : null;
        },
      },
      // Shared by every instance on this database: throttling counts attempts on all of them.
      guard: postgresLoginGuard(db.pool),
      ...(oidc ? { oidc } : {}),
      localLogin: config.localLogin ?? { mode: 'on' },
      async settings() {
        const kept = settingsCache;
        if (kept && kept.until > Date.now()) {
          // With other instances: once their acknowledged changes have been heard (projector.fresh).
          const fresh = projector.fresh?.() ?? true;
          if ((fresh === true || (await fresh)) && settingsCache === kept && !projector.behind?.()) return kept.value;
        }
        const at = settingsGeneration;
        const value = await currentSettings(db.pool);
        if (at === settingsGeneration && !projector.behind?.()) settingsCache = { value, until: Date.now() + 5_000 };
        return value;
      },
      invalidateSettings() {
        settingsCache = null;
      },
    },
  };
  const firstAdmin = await bootstrapFirstAdmin({ deps, config });
  // Creates this instance was running when it was stopped (kill -9) are ended before it answers;
  // a failure to end them is logged and does not keep the service from starting (the next start tries again).
  await failInterruptedCreations(deps).catch((err) => log.error({ err: (err as Error).message }, 'could not end the creates interrupted by the last stop'));
  // The audit chain's head, signed outside the database now and then (docs/audit.md).
  const checkpointEvery = config.auditCheckpointSeconds ?? 300;
  const signCheckpoint = () => signAuditCheckpoint(commandLineInput(deps, 'audit checkpoint'), { ifMoved: true }).catch((err) => log.warn({ err: (err as Error).message }, 'audit checkpoint failed'));
  const checkpoints = checkpointEvery > 0 ? setInterval(() => void signCheckpoint(), checkpointEvery * 1000) : null;
  checkpoints?.unref();
  // Counts of refused unauthenticated requests that no later refusal carried: one aggregate event each (http/auth/auditThrottle.ts).
  const refusalFlush = setInterval(() => void flushRefusalAggregates(deps).catch((err) => log.warn({ err: (err as Error).message }, 'writing the counted refusals failed')), REFUSAL_FLUSH_EVERY_MS);
  refusalFlush.unref();
  const sharingListener = await startSharingListener(config, deps, log);
  const access = createAccessControl({ verified, ...(projector.fresh ? { fresh: () => projector.fresh!() } : {}) });
  const drain = createDrain();
  const app = createApp(deps, allRoutes, access, drain);
  const server: Server = await new Promise((resolve, reject) => {
    // Request line and headers within LNM_HEADERS_TIMEOUT_SECONDS for everyone (checked every
    // second, not Node's 30 s); bodies: http/jsonBody.ts (docs/security.md).
    const s = http.createServer({ headersTimeout: (config.headersTimeoutSeconds ?? 10) * 1000, connectionsCheckingInterval: 1000 }, app.callback());
    s.listen(config.port, config.host, () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`port ${config.port} is already in use; set PORT or --port`) : err),
    );
  });
  server.on('upgrade', nodeLogsUpgradeHandler(app, deps, allRoutes, access));
  // What Node's HTTP parser refuses (oversized headers, malformed requests) gets the one error body.
  server.on('clientError', clientErrorHandler);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  serviceAddress = url.slice('http://'.length);
  log.info({ url, edition: config.edition, eventStore: store.kind }, 'listening');
  let closing: Promise<void> | null = null;
  return {
    url,
    firstAdmin,
    deps,
    projector,
    close() {
      closing ??= (async () => {
        // In order: answer every new request with a retryable 503 (Connection: close) while those in
        // flight finish within the grace period; only then stop listening, and after that stop the
        // sagas and close the pool they all write through. Listening on while draining means a
        // request that reached the server gets an answer, never a reset from a closed listener.
        drain.start();
        const graceSeconds = config.shutdownGraceSeconds ?? 30;
        if (!(await drain.idle(graceSeconds * 1000))) {
          log.warn({ inFlight: drain.inFlight(), graceSeconds }, 'requests still running after the shutdown grace period; closing their connections');
        }
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeAllConnections?.();
        await closed;
        await sharingListener?.close();
        clearInterval(slowBudget);
        if (checkpoints) clearInterval(checkpoints);
        clearInterval(refusalFlush);
        await flushRefusalAggregates(deps, undefined, { all: true }).catch((err) => log.warn({ err: (err as Error).message }, 'writing the counted refusals failed'));
        // A running backup is stopped (and recorded FAILED) rather than waited for: before the
        // background work stops, which waits for the saga running the backup to return.
        backups.shutdown();
        // The background work stops and its leases are released, so other instances take it at once
        // (the metrics stack's Prometheus is stopped here and started by its next holder).
        // Both at once: each halts its rounds before releasing the presence lease they share, so
        // neither renews it after the other let it go.
        await Promise.all([pieceWork.stop(), nodeWork.stop()]);
        await projector.stop();
        await store.close();
        await notices.close();
        closingBackfill = true;
        await backfilling;
        await db.close();
      })();
      return closing;
    },
  };
}
