// Configuration from environment variables, overridden by command-line flags. The README's
// configuration table lists every entry here; keep them in step.
import { isIP } from 'node:net';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Edition } from '../application/deps.ts';
import { parseLocalLogin, parseRoleMap, type LocalLoginPolicy } from '../domain/users/oidc.ts';
import { ROLES, type Role } from '../domain/users/roles.ts';
import { byteSize } from '../http/jsonBody.ts';
import { DEFAULT_DOCKER_PREFIX, dockerPrefixFromEnv } from '../adapters/engines/nodeImages.ts';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  eventStore: 'postgres' | 'eventstoredb';
  eventStoreUrl: string | null;
  edition: Edition;
  bodyLimit: string;
  logLevel: string;
  instanceId: string | null;
  version: string;
  secureCookies: boolean;
  adminUsername: string;
  adminPassword: string | null;
  /** null: read from (or generated into) DATA_DIR/key-encryption-key. */
  keyEncryptionKey: string | null;
  nodeEngine: 'process' | 'docker';
  evmClient: 'auto' | 'besu' | 'geth' | 'anvil';
  /** Image of managed Vaults (Vault provider CREATE mode); null: hashicorp/vault:<version>. */
  vaultImage?: string | null;
  /** Docker images of node software, when set: besu, anvil. */
  besuImage?: string | null;
  anvilImage?: string | null;
  /** Fabric (consortium nodes): binaries directory, default config directory, images; null: unset. */
  fabricBin?: string | null;
  fabricCfg?: string | null;
  /** Several Fabric releases side by side (adapters/consortium/fabricReleases.ts); null: LNM_FABRIC_BIN or PATH only. */
  fabricReleases?: string | null;
  /** Fabric-X (ledgerX nodes): programs directory; null: PATH. */
  fabricXBin?: string | null;
  fabricPeerImage?: string | null;
  fabricOrdererImage?: string | null;
  fabricXArmaImage?: string | null;
  fabricXCommitterImage?: string | null;
  /** Image that runs a chaincode given as files under the docker engine; null: unset. */
  chaincodeNodeImage?: string | null;
  /** Prefix of this deployment's container, volume and Compose project names on a Docker Engine. */
  dockerPrefix?: string;
  /** Seconds a shutdown waits for the requests in flight. */
  /** ledgerX: how long a join waits for each role node to come up (SPEC Limits: 240 s). */
  ledgerXJoinTimeoutSeconds?: number;
  shutdownGraceSeconds?: number;
  /** Seconds between periodic audit checkpoints; 0: only on demand. */
  auditCheckpointSeconds?: number;
  /** Where each audit checkpoint is also POSTed. */
  auditWitnessUrl?: string;
  /** The time to live of this instance's lease on the background work (several instances on one database). */
  workLeaseSeconds?: number;
  /** Webhook and notification targets on loopback, link-local or private addresses are allowed. */
  allowPrivateTargets?: boolean;
  /** The bracketed tag starting notification email subjects. */
  serviceTag?: string;
  /** Sample disk, CPU and memory use and raise resource alerts. */
  resourceMonitor?: boolean;
  /** Seconds between connectivity checks of each backup target (system.s3.connection_issue). */
  backupTargetCheckSeconds?: number;
  /** Seconds between status checks of each node host (remote Docker Engine). */
  hostCheckSeconds?: number;
  /** How old an object of a never-recorded node must be before the cluster check removes it (docs/kubernetes.md). */
  clusterOrphanGraceSeconds?: number;
  /** A backup upload without progress for this long is stopped and FAILED. */
  backupStallSeconds?: number;
  /** The managed Prometheus: the program (process engine; null: prometheus on PATH) and the image (docker engine). */
  prometheusBin?: string | null;
  prometheusImage?: string | null;
  /** Node sharing (pro): port of the instance-to-instance HTTPS listener (null: off) and the host peers reach it at. */
  sharingPort?: number | null;
  sharingHost?: string;
  /** First port tried for chaincode servers (consortium). */
  chaincodePortFrom?: number;
  /** The IPv4 address peers reach this machine's chaincode servers at (127.0.0.1: this machine's peers only). */
  chaincodeHost?: string;
  /** Sign-in through an OpenID provider; null: off. */
  oidc?: OidcConfig | null;
  /** Who may log in with a local password. */
  localLogin?: LocalLoginPolicy;
  /** Browser origins besides the service's own that a cookie session may change state from (a public origin behind a proxy). */
  allowedOrigins?: string[];
  /** Largest body of the sign-in (public routes), e.g. "8kb". */
  signInBodyLimit?: string;
  /** Seconds a caller without credentials has to send a sign-in body. */
  unauthenticatedBodySeconds?: number;
  /** Seconds any client has to send the request line and headers. */
  headersTimeoutSeconds?: number;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  scopes: string[];
  roleClaim: string;
  roleMap: Record<string, Role>;
  defaultRole: Role | null;
  audience: string | null;
}

export interface ConfigEntry {
  env: string;
  flag?: string;
  default: string;
  description: string;
}

export const configEntries: ConfigEntry[] = [
  { env: 'PORT', flag: '--port', default: '8100', description: 'HTTP port' },
  { env: 'HOST', flag: '--host', default: '0.0.0.0', description: 'address to listen on (127.0.0.1 to keep the API local)' },
  { env: 'DATA_DIR', flag: '--data-dir', default: './data', description: 'embedded PostgreSQL, key-encryption key, node files' },
  { env: 'DATABASE_URL', flag: '--database-url', default: '(unset: embedded PostgreSQL)', description: 'external PostgreSQL connection string' },
  { env: 'EVENT_STORE', flag: '--event-store', default: 'postgres', description: 'postgres or eventstoredb' },
  { env: 'EVENTSTORE_URL', flag: '--eventstore-url', default: '(unset)', description: 'EventStoreDB/KurrentDB connection string, e.g. esdb://localhost:2113?tls=false (needed when EVENT_STORE=eventstoredb)' },
  { env: 'EDITION', flag: '--edition', default: 'community', description: 'community, pro or enterprise' },
  { env: 'BODY_LIMIT', flag: '--body-limit', default: '1mb', description: 'largest accepted JSON request body' },
  { env: 'LNM_SIGN_IN_BODY_LIMIT', flag: '--sign-in-body-limit', default: '8kb', description: 'largest accepted body of the sign-in (POST /auth/login, the public routes): 413 beyond it; other routes read their body (up to BODY_LIMIT) only once the caller is authenticated, and answer a caller without credentials 401 without reading it' },
  { env: 'LNM_UNAUTHENTICATED_BODY_SECONDS', flag: '--unauthenticated-body-seconds', default: '5', description: 'a caller without credentials must send the whole sign-in body within this many seconds: 408 REQUEST_TIMEOUT and the connection closed otherwise (a slow-body client is cut off); also how long a connection answered with its body unread lingers (reading and dropping) before it is closed' },
  { env: 'LNM_HEADERS_TIMEOUT_SECONDS', flag: '--headers-timeout-seconds', default: '10', description: 'every client must send its request line and headers within this many seconds (checked every second): 408 REQUEST_TIMEOUT in the error body and the connection closed (a slow-loris client is cut off); an authenticated request then has Node\'s 300 s for its body' },
  { env: 'LOG_LEVEL', flag: '--log-level', default: 'info', description: 'fatal, error, warn, info, debug, trace or silent' },
  { env: 'INSTANCE_ID', flag: '--instance-id', default: '(generated, kept in DATA_DIR)', description: 'identifies this server in webhooks and notifications' },
  { env: 'ADMIN_USERNAME', flag: '--admin-username', default: 'admin', description: 'username of the first ADMIN, created on the first start' },
  { env: 'ADMIN_PASSWORD', flag: '--admin-password', default: '(generated and printed once)', description: 'password of the first ADMIN (at least 12 characters); only read on the first start' },
  { env: 'SECURE_COOKIES', flag: '--secure-cookies', default: 'false', description: 'force the Secure flag on the session cookie (it is set anyway on requests that arrive over TLS)' },
  { env: 'KEY_ENCRYPTION_KEY', flag: '--key-encryption-key', default: '(generated into DATA_DIR/key-encryption-key, mode 0600)', description: 'encrypts the private keys of the database key provider and provider secrets (AES-256-GCM, PBKDF2-SHA256 per key); a start with a different key than the keys were made with fails' },
  { env: 'LNM_NODE_ENGINE', flag: '--node-engine', default: 'process', description: 'where nodes run: process (local binaries, detached, pid files) or docker (containers on the host network; images from LNM_IMAGE_<SOFTWARE>, e.g. LNM_IMAGE_ANVIL=lnm-anvil:local)' },
  { env: 'LNM_IMAGE_VAULT', flag: '--vault-image', default: '(unset: hashicorp/vault:<version> of the request)', description: 'image of managed Vaults (Vault key provider CREATE mode), run through the Docker Engine whatever LNM_NODE_ENGINE says' },
  { env: 'LNM_IMAGE_BESU', flag: '--besu-image', default: 'hyperledger/besu:24.12.2', description: 'image of besu nodes under the docker engine and on a Kubernetes cluster (loaded on its nodes; the version whose options and genesis format this release is checked against; Clique and PoW still mine there)' },
  { env: 'LNM_IMAGE_ANVIL', flag: '--anvil-image', default: 'lnm-anvil:local', description: 'image of anvil nodes under the docker engine (no registry ships one: .ci/docker.sh builds it from the npm-shipped binary)' },
  { env: 'LNM_FABRIC_BIN', flag: '--fabric-bin', default: '(unset: peer and orderer on PATH)', description: 'directory holding the Fabric 2.5 programs (peer, orderer; osnadmin and configtxlator for the tests) for consortium nodes under the process engine: the bin/ of a Hyperledger Fabric 2.5 release archive; when set, only this directory is searched' },
  { env: 'LNM_FABRIC_RELEASES', flag: '--fabric-releases', default: '(unset: the one release of LNM_FABRIC_BIN or PATH)', description: 'Fabric releases side by side (e.g. 2.5 and 3.1): a colon-separated list of directories, each a release\'s bin/ (peer, orderer, osnadmin, configtxlator), a release holding bin/, or a directory of such releases; each is known by the version its peer prints. A new consortium node runs the newest unless it asks for one (config.fabricVersion); LNM_FABRIC_BIN is one more release' },
  { env: 'LNM_FABRIC_CFG', flag: '--fabric-cfg', default: '(unset: <bin>/../config, else the image\'s /etc/hyperledger/fabric)', description: 'directory holding Fabric 2.5\'s default core.yaml and orderer.yaml, the base of every consortium node\'s config file' },
  { env: 'LNM_FABRIC_X_BIN', flag: '--fabric-x-bin', default: '(unset: arma and committer on PATH)', description: 'directory holding the Fabric-X programs of the ledgerX platform (arma of fabric-x-orderer 1.0, committer of fabric-x-committer 1.0; for the tests also loadgen, armageddon, and configtxgen and configtxlator of fabric-x-common 0.2); when set, only this directory is searched' },
  { env: 'LNM_IMAGE_FABRIC_PEER', flag: '--fabric-peer-image', default: 'hyperledger/fabric-peer:2.5.12', description: 'image of consortium peers under the docker engine (.ci/docker.sh builds lnm-fabric-peer:local from the Fabric programs it finds); its repository tagged by version (lnm-fabric-peer:3.1.5) is a release docker nodes choose (config.fabricVersion)' },
  { env: 'LNM_IMAGE_FABRIC_ORDERER', flag: '--fabric-orderer-image', default: 'hyperledger/fabric-orderer:2.5.12', description: 'image of consortium orderers under the docker engine (.ci/docker.sh builds lnm-fabric-orderer:local, and :<version> per Fabric release it finds)' },
  { env: 'LNM_IMAGE_FABRIC_X_ARMA', flag: '--fabric-x-arma-image', default: 'lnm-fabric-x-arma:local', description: 'image of ledgerX orderer roles (arma) under the docker engine (no registry ships one: .ci/docker.sh builds it from the Fabric-X programs it finds)' },
  { env: 'LNM_IMAGE_FABRIC_X_COMMITTER', flag: '--fabric-x-committer-image', default: 'lnm-fabric-x-committer:local', description: 'image of ledgerX committer services under the docker engine (.ci/docker.sh builds it from the Fabric-X programs it finds)' },
  { env: 'LNM_IMAGE_CHAINCODE_NODE', flag: '--chaincode-node-image', default: 'lnm-chaincode-node:local', description: 'image that runs a chaincode given as files (fabric-shim\'s server CLI) under the docker engine (.ci/docker.sh builds it from this host\'s node and node_modules)' },
  { env: 'LNM_DOCKER_PREFIX', flag: '--docker-prefix', default: 'lnm-', description: 'prefix of the names this deployment gives on a Docker Engine: node containers (<prefix>node-<id>), their volumes on node hosts (<prefix>node-<id>-files) and plugin Compose projects (<prefix>plugin-<name>); two deployments (different databases) that share a Docker Engine or a node host each need their own, e.g. lnm-a- and lnm-b-, or the second is refused the first one\'s containers; every instance of one deployment gives the same. Lowercase letters, digits, - and _, starting with a letter or digit, at most 40. Set it before the first node starts: containers made under another prefix are no longer seen' },
  { env: 'LNM_HOST_CHECK_SECONDS', flag: '--host-check-seconds', default: '30', description: 'seconds between status checks of each node host (a remote Docker Engine, docs/hosts.md): reachable, engine version, running nodes' },
  { env: 'LNM_K8S_ORPHAN_GRACE_SECONDS', flag: '--k8s-orphan-grace-seconds', default: '600', description: 'the periodic check of a Kubernetes cluster removes the objects this deployment made there (labelled with its prefix) for a node id it has no record of (a service killed between a node\'s Service made ahead and its record) once they are this old; younger ones may be a create in flight on another instance; its copy-helper pods of backups and restores that ended go at this age too (docs/kubernetes.md, "Orphans")' },
  { env: 'LNM_BACKUP_CHECK_SECONDS', flag: '--backup-check-seconds', default: '300', description: 'seconds between connectivity checks of each backup target; a failure raises system.s3.connection_issue' },
  { env: 'LNM_BACKUP_STALL_SECONDS', flag: '--backup-stall-seconds', default: '120', description: 'a backup whose upload makes no progress for this long is stopped and recorded FAILED with restic\'s last error (restic alone retries an unreachable storage for many minutes); also the stall limit of a Kubernetes claim copy (backup, restore) through its helper pod, which ends itself 15 s after that with no copy running in it (docs/kubernetes.md)' },
  { env: 'LNM_PROMETHEUS_BIN', flag: '--prometheus-bin', default: '(unset: prometheus on PATH)', description: 'the prometheus program the metrics stack runs under the process engine (Debian: apt-get install prometheus gives /usr/bin/prometheus)' },
  { env: 'LNM_IMAGE_PROMETHEUS', flag: '--prometheus-image', default: 'prom/prometheus:latest', description: 'image of the metrics stack\'s Prometheus under the docker engine' },
  { env: 'LNM_EVM_CLIENT', flag: '--evm-client', default: 'auto', description: 'default EVM client of new networks: auto (besu where available, else anvil for a one-validator network), besu or anvil' },
  { env: 'LNM_ALLOW_PRIVATE_TARGETS', flag: '--allow-private-targets', default: 'false', description: 'true lets webhooks, webhook notification providers and SMTP notification providers reach loopback, link-local and private addresses (refused by default, at save time and at every delivery, to keep the server from being used against its own network; an internal mail relay needs it)' },
  { env: 'LNM_SERVICE_TAG', flag: '--service-tag', default: 'LNM', description: 'the bracketed tag that starts the subject of notification emails: "[LNM] Node validator-1 is down"' },
  { env: 'LNM_SHARING_PORT', flag: '--sharing-port', default: '(unset: node sharing off)', description: 'node sharing (pro): port of the instance-to-instance HTTPS listener, served with a self-signed certificate of this instance (kept in DATA_DIR/sharing) that invitations carry and peers pin; 0 picks a free port' },
  { env: 'LNM_SHARING_HOST', flag: '--sharing-host', default: '127.0.0.1', description: 'host name or address other instances reach the sharing listener at (it goes into invitations and the certificate)' },
  { env: 'LNM_CHAINCODE_HOST', flag: '--chaincode-host', default: '127.0.0.1', description: 'IPv4 address peers reach this machine\'s chaincode servers at; set it to an address node hosts can reach (docs/hosts.md) for peers on them, and the servers listen on every address' },
  { env: 'LNM_CHAINCODE_PORT_FROM', flag: '--chaincode-port-from', default: '9100', description: 'first port tried for a chaincode server (consortium): a port is taken when a chaincode is first installed, and bound only once it is committed, so two instances on one host need ranges apart (e.g. 9100 and 9300)' },
  { env: 'LNM_LEDGERX_JOIN_TIMEOUT_SECONDS', flag: '--ledgerx-join-timeout-seconds', default: '240', description: 'ledgerX: how long joining an orderer group to a network (or starting the group) waits for each of its role nodes to come up before it says which role did not and why (its last log lines)' },
  { env: 'LNM_AUDIT_CHECKPOINT_SECONDS', flag: '--audit-checkpoint-seconds', default: '300', description: 'how often the server signs a checkpoint of the audit chain\'s head (when it moved) into DATA_DIR/audit-checkpoints.jsonl, which verify compares the chain with (docs/audit.md); 0: only on demand (POST /audit-logs/checkpoints)' },
  { env: 'LNM_AUDIT_WITNESS_URL', flag: '--audit-witness-url', default: '(unset)', description: 'an external witness every audit checkpoint is also POSTed to as JSON (height, head_hash, at, signer, signature), under the outbound policy of webhooks (LNM_ALLOW_PRIVATE_TARGETS); the outcome is in the checkpoint\'s audit entry' },
  { env: 'LNM_SHUTDOWN_GRACE_SECONDS', flag: '--shutdown-grace-seconds', default: '30', description: 'on SIGTERM or SIGINT the server refuses new requests (503 with Retry-After) and waits this long for the requests in flight to finish before it stops its background work and closes the database' },
  { env: 'LNM_WORK_LEASE_SECONDS', flag: '--work-lease-seconds', default: '9', description: 'several instances on one DATABASE_URL: node work (lifecycle and health probes) runs on the instance holding the node\'s shard lease (16 shards spread over the live instances), the other background work in 8 pieces, each on the instance holding its `work:<piece>` lease (expiry, webhooks, notifications, backups, host checks, block feed, resource monitor, metrics stack; spread by the same fair share); each lease is renewed every third of this time; when that instance dies another takes the work within this time and a third' },
  { env: 'LNM_RESOURCE_MONITOR', flag: '--resource-monitor', default: 'true', description: 'false stops sampling disk (data directory), CPU and memory use and timing database queries, so system.disk_space.warning, performance.cpu.high, performance.memory.high and performance.query.slow are never raised (the end-to-end tests turn it off so host load does not add events to their audit logs)' },
  { env: 'LNM_OIDC_ISSUER', flag: '--oidc-issuer', default: '(unset: OIDC sign-in off)', description: 'issuer URL of the OpenID provider (https; plain http only on a loopback address); its /.well-known/openid-configuration is read at start and retried at sign-in when the provider cannot be reached. Turns on GET /api/v1/auth/oidc/login and bearer JWTs (with LNM_OIDC_AUDIENCE); see docs/authentication.md' },
  { env: 'LNM_OIDC_CLIENT_ID', flag: '--oidc-client-id', default: '(unset; needed with LNM_OIDC_ISSUER)', description: 'client ID of this server at the provider' },
  { env: 'LNM_OIDC_CLIENT_SECRET', flag: '--oidc-client-secret', default: '(unset; needed with LNM_OIDC_ISSUER)', description: 'client secret (client_secret_basic); never shown or logged. Prefer the variable to the flag, which other users of the host can see in the process list' },
  { env: 'LNM_OIDC_REDIRECT_URL', flag: '--oidc-redirect-url', default: '(unset; needed with LNM_OIDC_ISSUER)', description: 'the callback URL registered at the provider, as browsers reach this server: https://lnm.example.org/api/v1/auth/oidc/callback' },
  { env: 'LNM_OIDC_SCOPES', flag: '--oidc-scopes', default: 'openid profile email', description: 'scopes asked for at sign-in, space- or comma-separated (openid is always included; add the one that releases the role claim, e.g. groups)' },
  { env: 'LNM_OIDC_ROLE_CLAIM', flag: '--oidc-role-claim', default: 'groups', description: 'claim of the ID token (and of bearer access tokens) holding the user\'s groups or roles: a string or an array; a dotted name reaches into objects (realm_access.roles)' },
  { env: 'LNM_OIDC_ROLE_MAP', flag: '--oidc-role-map', default: '(empty)', description: 'claim value to role, e.g. admins=ADMIN,ops=OPERATOR,auditors=VIEWER; a user in several mapped groups gets the highest role; applied at every sign-in' },
  { env: 'LNM_OIDC_DEFAULT_ROLE', flag: '--oidc-default-role', default: 'none', description: 'role of a user in no mapped group: VIEWER, OPERATOR, ADMIN, or none (refused, 403 OIDC_NO_ROLE)' },
  { env: 'LNM_OIDC_AUDIENCE', flag: '--oidc-audience', default: '(unset: bearer JWTs refused)', description: 'audience (aud) that JWT access tokens of the provider must carry to be accepted as Authorization: Bearer on the API' },
  { env: 'LNM_ALLOWED_ORIGINS', flag: '--allowed-origins', default: '(unset: the origin the request was addressed to only)', description: 'comma-separated browser origins (scheme://host[:port]) besides the one a request is addressed to (its Host header) from which a session cookie may change state or open a log WebSocket, e.g. https://lnm.example.org when a proxy forwards that public origin under another Host; any other Origin is refused (403 CROSS_ORIGIN, docs/security.md)' },
  { env: 'LNM_LOCAL_LOGIN', flag: '--local-login', default: 'on', description: 'password login (POST /auth/login and HTTP Basic): on, off (needs LNM_OIDC_ISSUER), or a comma-separated list of break-glass usernames that alone keep it, e.g. admin' },
];

function packageVersion(): string {
  try {
    const p = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'package.json');
    return (JSON.parse(readFileSync(p, 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

export class ConfigError extends Error {}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(`${name} must be ${allowed.join(', ')}; got ${value}`);
  return value as T;
}

function positiveInteger(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be a positive integer, got ${value}`);
  return n;
}

function sizeOf(name: string, value: string): string {
  let n: number;
  try {
    n = byteSize(value);
  } catch {
    throw new ConfigError(`${name} must be a size such as 8kb or 1mb, got ${value}`);
  }
  if (n < 1) throw new ConfigError(`${name} must be at least 1 byte, got ${value}`);
  return value;
}

function ipv4Of(name: string, value: string): string {
  if (isIP(value) !== 4) throw new ConfigError(`${name} must be an IPv4 address, got ${value}`);
  return value;
}

function portOf(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1024 || n > 65000) throw new ConfigError(`${name} must be a port from 1024 to 65000, got ${value}`);
  return n;
}

function dockerPrefixOf(value: string): string {
  try {
    return dockerPrefixFromEnv({ LNM_DOCKER_PREFIX: value });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** LNM_ALLOWED_ORIGINS: each an http(s) origin without path, query or credentials, as browsers send it in Origin. */
export function allowedOriginsOf(v: string | undefined): string[] {
  const out: string[] = [];
  for (const item of (v ?? '').split(',').map((x) => x.trim()).filter(Boolean)) {
    let u: URL;
    try {
      u = new URL(item);
    } catch {
      throw new ConfigError(`LNM_ALLOWED_ORIGINS: ${item} is not an origin (scheme://host[:port])`);
    }
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.search || u.hash || (u.pathname !== '/' && u.pathname !== '') || /[?#]/.test(item)) {
      throw new ConfigError(`LNM_ALLOWED_ORIGINS: ${item} is not an origin (scheme://host[:port], http or https, no path), e.g. https://lnm.example.org`);
    }
    out.push(u.origin);
  }
  return [...new Set(out)];
}

function sharingPortOf(v: string | undefined): number | null {
  if (v === undefined) return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`LNM_SHARING_PORT must be 0-65535, got ${v}`);
  return n;
}

function oidcConfigOf(values: Map<string, string>): OidcConfig | null {
  const issuer = values.get('LNM_OIDC_ISSUER');
  const others = ['LNM_OIDC_CLIENT_ID', 'LNM_OIDC_CLIENT_SECRET', 'LNM_OIDC_REDIRECT_URL', 'LNM_OIDC_ROLE_MAP', 'LNM_OIDC_AUDIENCE'].filter((k) => values.has(k));
  if (!issuer) {
    if (others.length) throw new ConfigError(`${others.join(', ')} given without LNM_OIDC_ISSUER`);
    return null;
  }
  const need = ['LNM_OIDC_CLIENT_ID', 'LNM_OIDC_CLIENT_SECRET', 'LNM_OIDC_REDIRECT_URL'].filter((k) => !values.has(k));
  if (need.length) throw new ConfigError(`LNM_OIDC_ISSUER needs ${need.join(', ')}`);
  const url = (name: string) => {
    const v = values.get(name)!;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new ConfigError(`${name} must be an absolute URL, got ${v}`);
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new ConfigError(`${name} must be an http(s) URL, got ${v}`);
    return v;
  };
  url('LNM_OIDC_ISSUER');
  url('LNM_OIDC_REDIRECT_URL');
  // Tokens and the client secret cross this connection: plain http only to a provider on this host.
  const issuerUrl = new URL(values.get('LNM_OIDC_ISSUER')!);
  if (issuerUrl.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(issuerUrl.hostname)) {
    throw new ConfigError(`LNM_OIDC_ISSUER must be an https URL (plain http only on a loopback address), got ${issuerUrl.origin}`);
  }
  let roleMap: Record<string, Role>;
  try {
    roleMap = parseRoleMap(values.get('LNM_OIDC_ROLE_MAP') ?? '');
  } catch (err) {
    throw new ConfigError(`LNM_OIDC_ROLE_MAP: ${(err as Error).message}`);
  }
  const defaultRole = (values.get('LNM_OIDC_DEFAULT_ROLE') ?? 'none').toUpperCase();
  if (defaultRole !== 'NONE' && !(ROLES as readonly string[]).includes(defaultRole)) throw new ConfigError(`LNM_OIDC_DEFAULT_ROLE must be ${ROLES.join(', ')} or none, got ${values.get('LNM_OIDC_DEFAULT_ROLE')}`);
  const scopes = [...new Set(['openid', ...(values.get('LNM_OIDC_SCOPES') ?? 'openid profile email').split(/[\s,]+/).filter(Boolean)])];
  return {
    issuer: values.get('LNM_OIDC_ISSUER')!,
    clientId: values.get('LNM_OIDC_CLIENT_ID')!,
    clientSecret: values.get('LNM_OIDC_CLIENT_SECRET')!,
    redirectUrl: values.get('LNM_OIDC_REDIRECT_URL')!,
    scopes,
    roleClaim: values.get('LNM_OIDC_ROLE_CLAIM') ?? 'groups',
    roleMap,
    defaultRole: defaultRole === 'NONE' ? null : (defaultRole as Role),
    audience: values.get('LNM_OIDC_AUDIENCE') ?? null,
  };
}

function localLoginOf(values: Map<string, string>, oidc: OidcConfig | null): LocalLoginPolicy {
  let policy: LocalLoginPolicy;
  try {
    policy = parseLocalLogin(values.get('LNM_LOCAL_LOGIN') ?? 'on');
  } catch (err) {
    throw new ConfigError(`LNM_LOCAL_LOGIN: ${(err as Error).message}`);
  }
  if (policy.mode === 'off' && !oidc) throw new ConfigError('LNM_LOCAL_LOGIN=off without LNM_OIDC_ISSUER would leave no way to sign in');
  return policy;
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const values = new Map<string, string>();
  for (const e of configEntries) if (env[e.env] !== undefined && env[e.env] !== '') values.set(e.env, env[e.env]!);
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const entry = configEntries.find((e) => e.flag === flag);
    if (!entry) throw new ConfigError(`unknown option ${flag}; see --help`);
    const v = inline ?? argv[++i];
    if (v === undefined) throw new ConfigError(`${flag} needs a value`);
    values.set(entry.env, v);
  }
  const get = (k: string, d: string) => values.get(k) ?? d;
  const port = Number(get('PORT', '8100'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be 0-65535, got ${get('PORT', '')}`);
  const edition = get('EDITION', 'community');
  if (!['community', 'pro', 'enterprise'].includes(edition)) throw new ConfigError(`EDITION must be community, pro or enterprise, got ${edition}`);
  const eventStore = get('EVENT_STORE', 'postgres');
  if (eventStore !== 'postgres' && eventStore !== 'eventstoredb') throw new ConfigError(`EVENT_STORE must be postgres or eventstoredb, got ${eventStore}`);
  const eventStoreUrl = values.get('EVENTSTORE_URL') ?? null;
  if (eventStore === 'eventstoredb' && !eventStoreUrl) throw new ConfigError('EVENT_STORE=eventstoredb needs EVENTSTORE_URL');
  const oidc = oidcConfigOf(values);
  return {
    oidc,
    localLogin: localLoginOf(values, oidc),
    port,
    host: get('HOST', '0.0.0.0'),
    dataDir: path.resolve(get('DATA_DIR', './data')),
    databaseUrl: values.get('DATABASE_URL') ?? null,
    eventStore,
    eventStoreUrl,
    edition: edition as Edition,
    bodyLimit: get('BODY_LIMIT', '1mb'),
    logLevel: get('LOG_LEVEL', 'info'),
    instanceId: values.get('INSTANCE_ID') ?? null,
    version: packageVersion(),
    secureCookies: get('SECURE_COOKIES', 'false') === 'true',
    adminUsername: get('ADMIN_USERNAME', 'admin'),
    adminPassword: values.get('ADMIN_PASSWORD') ?? null,
    keyEncryptionKey: values.get('KEY_ENCRYPTION_KEY') ?? null,
    nodeEngine: oneOf('LNM_NODE_ENGINE', get('LNM_NODE_ENGINE', 'process'), ['process', 'docker'] as const),
    evmClient: oneOf('LNM_EVM_CLIENT', get('LNM_EVM_CLIENT', 'auto'), ['auto', 'besu', 'geth', 'anvil'] as const),
    vaultImage: values.get('LNM_IMAGE_VAULT') ?? null,
    besuImage: values.get('LNM_IMAGE_BESU') ?? null,
    anvilImage: values.get('LNM_IMAGE_ANVIL') ?? null,
    fabricBin: values.get('LNM_FABRIC_BIN') ?? null,
    fabricCfg: values.get('LNM_FABRIC_CFG') ?? null,
    fabricReleases: values.get('LNM_FABRIC_RELEASES') ?? null,
    fabricXBin: values.get('LNM_FABRIC_X_BIN') ?? null,
    fabricPeerImage: values.get('LNM_IMAGE_FABRIC_PEER') ?? null,
    fabricOrdererImage: values.get('LNM_IMAGE_FABRIC_ORDERER') ?? null,
    fabricXArmaImage: values.get('LNM_IMAGE_FABRIC_X_ARMA') ?? null,
    fabricXCommitterImage: values.get('LNM_IMAGE_FABRIC_X_COMMITTER') ?? null,
    chaincodeNodeImage: values.get('LNM_IMAGE_CHAINCODE_NODE') ?? null,
    dockerPrefix: dockerPrefixOf(get('LNM_DOCKER_PREFIX', DEFAULT_DOCKER_PREFIX)),
    serviceTag: get('LNM_SERVICE_TAG', 'LNM'),
    resourceMonitor: oneOf('LNM_RESOURCE_MONITOR', get('LNM_RESOURCE_MONITOR', 'true'), ['true', 'false'] as const) === 'true',
    allowPrivateTargets: oneOf('LNM_ALLOW_PRIVATE_TARGETS', get('LNM_ALLOW_PRIVATE_TARGETS', 'false'), ['true', 'false'] as const) === 'true',
    hostCheckSeconds: positiveInteger('LNM_HOST_CHECK_SECONDS', get('LNM_HOST_CHECK_SECONDS', '30')),
    clusterOrphanGraceSeconds: positiveInteger('LNM_K8S_ORPHAN_GRACE_SECONDS', get('LNM_K8S_ORPHAN_GRACE_SECONDS', '600')),
    backupTargetCheckSeconds: positiveInteger('LNM_BACKUP_CHECK_SECONDS', get('LNM_BACKUP_CHECK_SECONDS', '300')),
    backupStallSeconds: positiveInteger('LNM_BACKUP_STALL_SECONDS', get('LNM_BACKUP_STALL_SECONDS', '120')),
    prometheusBin: values.get('LNM_PROMETHEUS_BIN') ?? null,
    prometheusImage: values.get('LNM_IMAGE_PROMETHEUS') ?? null,
    sharingPort: sharingPortOf(values.get('LNM_SHARING_PORT')),
    sharingHost: get('LNM_SHARING_HOST', '127.0.0.1'),
    chaincodePortFrom: portOf('LNM_CHAINCODE_PORT_FROM', get('LNM_CHAINCODE_PORT_FROM', '9100')),
    chaincodeHost: ipv4Of('LNM_CHAINCODE_HOST', get('LNM_CHAINCODE_HOST', '127.0.0.1')),
    ledgerXJoinTimeoutSeconds: positiveInteger('LNM_LEDGERX_JOIN_TIMEOUT_SECONDS', get('LNM_LEDGERX_JOIN_TIMEOUT_SECONDS', '240')),
    shutdownGraceSeconds: positiveInteger('LNM_SHUTDOWN_GRACE_SECONDS', get('LNM_SHUTDOWN_GRACE_SECONDS', '30')),
    auditWitnessUrl: get('LNM_AUDIT_WITNESS_URL', '') || undefined,
    auditCheckpointSeconds: get('LNM_AUDIT_CHECKPOINT_SECONDS', '300') === '0' ? 0 : positiveInteger('LNM_AUDIT_CHECKPOINT_SECONDS', get('LNM_AUDIT_CHECKPOINT_SECONDS', '300')),
    workLeaseSeconds: positiveInteger('LNM_WORK_LEASE_SECONDS', get('LNM_WORK_LEASE_SECONDS', '9')),
    allowedOrigins: allowedOriginsOf(values.get('LNM_ALLOWED_ORIGINS')),
    signInBodyLimit: sizeOf('LNM_SIGN_IN_BODY_LIMIT', get('LNM_SIGN_IN_BODY_LIMIT', '8kb')),
    unauthenticatedBodySeconds: positiveInteger('LNM_UNAUTHENTICATED_BODY_SECONDS', get('LNM_UNAUTHENTICATED_BODY_SECONDS', '5')),
    headersTimeoutSeconds: positiveInteger('LNM_HEADERS_TIMEOUT_SECONDS', get('LNM_HEADERS_TIMEOUT_SECONDS', '10')),
  };
}

/** The Fabric and Fabric-X entries of the configuration as the environment the platform runtimes read (flags included). */
export function fabricEnv(config: Config): Record<string, string> {
  const entries: [string, string | null | undefined][] = [
    ['LNM_FABRIC_BIN', config.fabricBin],
    ['LNM_FABRIC_CFG', config.fabricCfg],
    ['LNM_FABRIC_RELEASES', config.fabricReleases],
    ['LNM_FABRIC_X_BIN', config.fabricXBin],
    ['LNM_IMAGE_FABRIC_PEER', config.fabricPeerImage],
    ['LNM_IMAGE_FABRIC_ORDERER', config.fabricOrdererImage],
    ['LNM_IMAGE_FABRIC_X_ARMA', config.fabricXArmaImage],
    ['LNM_IMAGE_FABRIC_X_COMMITTER', config.fabricXCommitterImage],
    ['LNM_IMAGE_CHAINCODE_NODE', config.chaincodeNodeImage],
  ];
  return Object.fromEntries(entries.filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** What every platform runtime reads of the configuration: the Fabric entries and the deployment's Docker name prefix. */
export function engineEnv(config: Config): Record<string, string> {
  return { ...fabricEnv(config), LNM_DOCKER_PREFIX: config.dockerPrefix ?? DEFAULT_DOCKER_PREFIX };
}
