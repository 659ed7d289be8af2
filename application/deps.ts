import type { AuditAnchor } from '../domain/audit/checkpoints.ts';
import type pg from 'pg';
import type { EventStore } from '../domain/shared/eventStore.ts';
import type { Projector } from '../projections/projector.ts';
import type { CurrentSettings } from '../projections/settings.ts';
import type { ApiKeyCodec, LoginGuard, OidcRelyingParty, PasswordHasher, SessionStore } from '../domain/users/ports.ts';
import type { LocalLoginPolicy } from '../domain/users/oidc.ts';
import type { KeyServices } from '../domain/keys/keyServices.ts';
import type { EvmDeps } from '../domain/evm/evmPorts.ts';
import type { NodeObservations } from '../domain/nodes/nodeObservations.ts';
import type { ConsortiumDeps } from '../domain/consortium/consortiumDeps.ts';
import type { LedgerXDeps } from '../domain/ledgerx/ledgerxDeps.ts';
import type { ReportRenderer } from '../domain/audit/reports.ts';
import type { OutboundHttp, SecretBox } from '../domain/webhooks/ports.ts';
import type { NotifierDeps } from '../domain/notifications/notifier.ts';
import type { BackupServices } from '../domain/backups/backupPorts.ts';
import type { ServiceMetrics } from '../domain/metrics/serviceMetrics.ts';
import type { MetricsStackDeps } from '../domain/metrics/metricsStackPorts.ts';
import type { PluginRuntime } from '../domain/plugins/pluginPorts.ts';
import type { SharingDeps } from '../domain/sharing/sharingPorts.ts';
import type { ClusterNodePorts, NodeHostDirectory, NodeHostProbe } from '../domain/hosts/hostPorts.ts';

export interface SecurityDeps {
  sessions: SessionStore;
  passwords: PasswordHasher;
  apiKeys: ApiKeyCodec;
  guard: LoginGuard;
  /** OpenID Connect sign-in and bearer tokens; absent when LNM_OIDC_ISSUER is not set. */
  oidc?: OidcRelyingParty;
  /** Who may log in with a local password (LNM_LOCAL_LOGIN); absent: everyone. */
  localLogin?: LocalLoginPolicy;
  /** Current settings (cached briefly; emptied when any instance's settings change is projected here, and validated against the other instances' acknowledged changes before a hit answers: docs/scaling.md). */
  settings(): Promise<CurrentSettings>;
  invalidateSettings(): void;
}

export type Edition = 'community' | 'pro' | 'enterprise';

export interface HttpConfig {
  edition: Edition;
  version: string;
  instanceId: string;
  /** The deployment's id, one per database (adapters/postgres/deploymentIdentity.ts); absent in deps built without a database. */
  deploymentId?: string;
  /** Largest accepted JSON body, e.g. "1mb". */
  bodyLimit: string;
  /** Largest body of a public route (the sign-in), e.g. "8kb" (LNM_SIGN_IN_BODY_LIMIT; default http/app.ts). */
  signInBodyLimit?: string;
  /** Seconds a caller without credentials has to send a public route's body (LNM_UNAUTHENTICATED_BODY_SECONDS). */
  unauthenticatedBodySeconds?: number;
  defaultPageSize: number;
  maxPageSize: number;
  /** Cookies get Secure when the service is reached over TLS (or this is forced on). */
  secureCookies: boolean;
  /** Origins besides the request's own from which a cookie session may change state (LNM_ALLOWED_ORIGINS). */
  allowedOrigins?: readonly string[];
}

export interface Logger {
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
}

/** Everything a route may use; built once by the composition root (bin/). */
export interface AppDeps {
  /** Signs and keeps the audit trail's checkpoints outside the database (absent: no anchor, verify checks the chain and the listing only). */
  auditAnchor?: AuditAnchor;
  config: HttpConfig;
  pool: pg.Pool;
  store: EventStore;
  projector: Projector;
  log: Logger;
  clock: () => Date;
  newId: () => string;
  /** Next integer id of a resource kind (users, organizations, nodes, ...). */
  nextId: (kind: string) => Promise<number>;
  startedAt: Date;
  /** The leases on background work this instance holds now (several instances on one database). */
  work?: () => string[];
  security: SecurityDeps;
  reports: ReportRenderer;
  /** EVM networks and nodes (runtime, keys, contract deployment); absent when not wired. */
  evm?: EvmDeps;
  /** What the health monitor last saw of each node: an observation cache the node lists read. */
  observations?: NodeObservations;
  /** Consortium (Fabric) nodes and networks; absent when not wired. */
  consortium?: ConsortiumDeps;
  /** The ledgerX platform (Fabric-X); absent where the server was built without it. */
  ledgerx?: LedgerXDeps;
  /** The service's own metrics (GET /metrics); absent when not wired. */
  metrics?: ServiceMetrics;
  /** The managed metrics stack (Prometheus) and the node exporter; absent when not wired. */
  metricsStack?: MetricsStackDeps;
  /** Plugins under Docker Compose; absent when not wired. */
  plugins?: PluginRuntime;
  /** Key providers by id, X.509 issuing, CRLs and sign-data (organizations, keys, key providers). */
  keys: KeyServices;
  /** Outbound HTTP of webhooks and notifications (private targets refused unless allowed). */
  outbound: OutboundHttp;
  /** Seals and opens webhook and notification secrets under KEY_ENCRYPTION_KEY. */
  secrets: SecretBox;
  /** Tells the webhook delivery worker that rows are due now (after a replay). */
  wakeWebhookDeliveries(): void;
  /** Email and webhook sending of notification providers (their test endpoint). */
  notifier: NotifierDeps;
  /** Backup targets, restic and schedules; absent when not wired (the backup routes answer 503). */
  backups?: BackupServices;
  /** Node sharing: JWTs signed through the key provider, pinned-TLS calls to peers; absent when not wired. */
  sharing?: SharingDeps;
  /** Node hosts (remote Docker Engines over mutual TLS, Kubernetes clusters): the probe registration runs, and where a host is (the cluster check at node create); absent when not wired. */
  hosts?: { probe: NodeHostProbe; directory?: NodeHostDirectory; nodePorts?: ClusterNodePorts };
}
