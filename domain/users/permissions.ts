// Permissions: one name per operation of the API, one table from roles to permissions, and
// the permission every endpoint of SPEC.md needs.
//
//   Permission                      the string-literal union of every permission name
//   permissionCatalog               name -> one-line description
//   rolePermissions                 ADMIN | OPERATOR | VIEWER -> the permissions the role holds
//   hasPermission(role, p)          true when the role holds p
//   PUBLIC                          access marker of the routes that need no identity (login, health, OIDC sign-in)
//   endpointPermissions             {method, path, permission} for every SPEC.md endpoint
//   designedEndpointPermissions     the same for endpoints SPEC.md leaves to us (API keys, roles)
//   permissionForEndpoint(m, path)  lookup in both lists by SPEC path template ({id} style)
//   permissionTableMarkdown()       the role table as markdown (docs/permissions.md, README)
//
// Names follow SPEC.md where it shows them (NETWORK_CREATE, SYSTEM_MONITOR, system:configure);
// the rest are RESOURCE_VERB. Role policy, in short: ADMIN holds everything. OPERATOR runs the
// ledger estate (networks, nodes, organizations, keys incl. signing, backups, contracts, plugins'
// lifecycle, templates, sharing) but not the server's own security: users, other people's API
// keys, settings, audit, webhooks, notification and key-provider credentials, plugin installs.
// VIEWER reads non-secret state only: no audit logs (they hold every user's IP and agent), no key
// material (PEM downloads, signing), no settings, no node logs, no outbound-integration config.
import type { Role } from './roles.ts';

type Grant = 'OPERATOR' | 'VIEWER';
const O: Grant[] = ['OPERATOR'];
const OV: Grant[] = ['OPERATOR', 'VIEWER'];
const A: Grant[] = [];

// [description, roles besides ADMIN that hold it]
const definitions = {
  ACCOUNT_SELF: ['Act on your own account: read it (/auth/me), log out, change your own password', OV],
  ROLE_READ: ['Read the role-to-permission table', OV],
  USER_READ: ['List and read user accounts (never password hashes)', O],
  USER_CREATE: ['Create user accounts', A],
  USER_UPDATE: ['Change a user account\'s username or email', A],
  USER_DELETE: ['Delete user accounts (never the last ADMIN)', A],
  USER_PASSWORD_RESET: ['Set another user\'s password', A],
  USER_ROLE_ASSIGN: ['Change a user\'s role', A],
  API_KEY_READ: ['List your own API keys (prefix, scopes, expiry; never the secret)', OV],
  API_KEY_CREATE: ['Create API keys for yourself, scoped within your own permissions', O],
  API_KEY_REVOKE: ['Revoke your own API keys', O],
  API_KEY_MANAGE: ['List and revoke every user\'s API keys', A],
  NODE_READ: ['List and read nodes, their defaults, status and events', OV],
  NODE_CREATE: ['Create nodes, also by adding them to a network', O],
  NODE_UPDATE: ['Change a node\'s configuration', O],
  NODE_DELETE: ['Delete nodes', O],
  NODE_OPERATE: ['Start, stop and restart nodes', O],
  HOST_READ: ['List and read node hosts (remote Docker Engines) and their status; never their client keys', OV],
  HOST_MANAGE: ['Register, change and remove node hosts (a remote Docker Engine and its client key)', A],
  NODE_LOGS_READ: ['Read and follow node logs (may show hosts, paths and configuration)', O],
  CERTIFICATE_RENEW: ['Renew node and key certificates', O],
  NETWORK_READ: ['List and read networks, their nodes, validators, maps and channel configuration', OV],
  NETWORK_CREATE: ['Create or import a network', O],
  NETWORK_UPDATE: ['Change a network: join peers and orderers, channel configuration, anchor peers', O],
  NETWORK_DELETE: ['Delete networks', O],
  NETWORK_OPERATE: ['Start all nodes of a network', O],
  LEDGER_READ: ['Read blocks, transactions and chain information of a network', OV],
  ORGANIZATION_READ: ['List and read organizations and their certificate revocation lists', OV],
  ORGANIZATION_CREATE: ['Create organizations (and their CA keys)', O],
  ORGANIZATION_UPDATE: ['Change organizations', O],
  ORGANIZATION_DELETE: ['Delete organizations', O],
  KEY_READ: ['List and read key metadata: name, algorithm, public key, certificate expiry', OV],
  KEY_CREATE: ['Create keys', O],
  KEY_IMPORT: ['Import a key with its private key and certificate', O],
  KEY_DELETE: ['Delete keys', O],
  KEY_SIGN: ['Sign data with a key (audited as a sensitive operation)', O],
  KEY_CERTIFICATE_READ: ['Download a key\'s certificate or CA certificate as PEM (audited)', O],
  KEY_EXPORT: ['Download a client identity\'s private key (audited; the key then lives outside its provider)', A],
  KEY_ROTATE: ['Rotate keys and set their rotation schedule', O],
  KEY_PROVIDER_READ: ['List and read key providers and their status (never their credentials)', OV],
  KEY_PROVIDER_CREATE: ['Add key providers (they hold credentials and decide where new keys live)', A],
  KEY_PROVIDER_DELETE: ['Delete key providers', A],
  BACKUP_READ: ['List and read backups, backup targets and schedules (never target secrets)', OV],
  BACKUP_CREATE: ['Start a backup', O],
  BACKUP_DELETE: ['Delete backups', O],
  BACKUP_TARGET_MANAGE: ['Create, change and delete backup targets', O],
  BACKUP_SCHEDULE_MANAGE: ['Create, delete, enable and disable backup schedules', O],
  CHAINCODE_READ: ['List chaincodes', OV],
  CHAINCODE_MANAGE: ['Deploy, install, approve, commit and create chaincode', O],
  CHAINCODE_INVOKE: ['Invoke or query chaincode (signs a proposal with an organization identity)', O],
  CONTRACT_DEPLOY: ['Deploy an EVM smart contract', O],
  CONTRACT_INVOKE: ['Call a deployed EVM smart contract: query a function (eth_call) or send a transaction signed by a key the service holds', O],
  METRICS_READ: ['Read metrics defaults, status and node metrics', OV],
  METRICS_MANAGE: ['Deploy, undeploy, start and stop the metrics stack', O],
  PLUGIN_READ: ['List and read plugins', OV],
  PLUGIN_INSTALL: ['Install, update and remove plugin descriptors (they run arbitrary containers)', A],
  PLUGIN_OPERATE: ['Deploy, stop and resume installed plugins, and read their logs', O],
  NOTIFICATION_READ: ['List and read notification providers (secrets masked)', O],
  NOTIFICATION_MANAGE: ['Create, change, delete and test notification providers', A],
  SETTINGS_READ: ['Read the server settings (secrets masked)', O],
  SETTINGS_UPDATE: ['Change the server settings', A],
  AUDIT_CONFIGURE: ['Change audit retention, archiving and backup inclusion', A],
  SYSTEM_MONITOR: ['Read audit logs and verify their hash chain', A],
  REPORT_GENERATE: ['Generate activity and user-access reports from the audit log', A],
  'system:configure': ['Manage outbound webhooks (create, change, delete, test, replay, read deliveries), and accept node-sharing invitations (trusting another instance)', A],
  TEMPLATE_READ: ['Export a network as a template', OV],
  TEMPLATE_IMPORT: ['Validate and import network templates', O],
  SHARING_READ: ['List node-sharing peers', OV],
  SHARING_MANAGE: ['Create node-sharing invitations, sync with peers and revoke them (accepting an invitation needs system:configure)', O],
} satisfies Record<string, [string, Grant[]]>;

export type Permission = keyof typeof definitions;

export const PERMISSIONS = Object.keys(definitions) as Permission[];

export const permissionCatalog: Readonly<Record<Permission, string>> = Object.fromEntries(
  PERMISSIONS.map((p) => [p, definitions[p][0]]),
) as Record<Permission, string>;

const holders = (g: Grant) => PERMISSIONS.filter((p) => (definitions[p][1] as Grant[]).includes(g));

export const rolePermissions: Readonly<Record<Role, readonly Permission[]>> = {
  ADMIN: PERMISSIONS,
  OPERATOR: holders('OPERATOR'),
  VIEWER: holders('VIEWER'),
};

const roleSets: Record<Role, ReadonlySet<Permission>> = {
  ADMIN: new Set(rolePermissions.ADMIN),
  OPERATOR: new Set(rolePermissions.OPERATOR),
  VIEWER: new Set(rolePermissions.VIEWER),
};

export function hasPermission(role: Role, permission: Permission): boolean {
  return roleSets[role]?.has(permission) ?? false;
}

export function isPermission(value: string): value is Permission {
  return Object.prototype.hasOwnProperty.call(definitions, value);
}

/** Declared by the routes that work without an identity (login, health). */
export const PUBLIC = 'PUBLIC' as const;
export type EndpointAccess = Permission | typeof PUBLIC;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface EndpointPermission {
  method: HttpMethod;
  /** SPEC.md's path template, relative to /api/v1, with {param} placeholders. */
  path: string;
  permission: EndpointAccess;
}

type Row = [path: string, methods: Partial<Record<HttpMethod, EndpointAccess>>];

const rows = (list: Row[]): EndpointPermission[] =>
  list.flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, permission]) => ({ method: method as HttpMethod, path, permission: permission! })),
  );

const nodes = '/nodes/{id}';
const cn = '/networks/consortium';
const cnId = `${cn}/{id}`;
const evm = '/networks/evm';
const lx = '/networks/ledgerx';
const lxId = `${lx}/{id}`;
const net = '/networks/{networkId}';
const orgId = '/organizations/{id}';
const keyId = '/keys/{keyId}';
const plugin = '/plugins/{name}';
const hook = '/webhooks/{id}';
const sc = '/sc/consortium';

/** Every method + path of SPEC.md's Endpoints section, including the prose-only paths. */
export const endpointPermissions: readonly EndpointPermission[] = rows([
  ['/auth/login', { POST: PUBLIC }],
  ['/auth/logout', { POST: 'ACCOUNT_SELF' }],
  ['/auth/me', { GET: 'ACCOUNT_SELF' }],
  ['/auth/change-password', { POST: 'ACCOUNT_SELF' }],
  ['/users', { GET: 'USER_READ', POST: 'USER_CREATE' }],
  ['/users/{id}', { GET: 'USER_READ', PUT: 'USER_UPDATE', DELETE: 'USER_DELETE' }],
  ['/users/{id}/password', { PUT: 'USER_PASSWORD_RESET' }],
  ['/users/{id}/role', { PUT: 'USER_ROLE_ASSIGN' }],
  ['/health', { GET: PUBLIC }],

  ['/nodes', { GET: 'NODE_READ', POST: 'NODE_CREATE' }],
  ['/nodes/platform/{platform}', { GET: 'NODE_READ' }],
  ['/nodes/defaults/consortium-peer', { GET: 'NODE_READ' }],
  ['/nodes/defaults/consortium-orderer', { GET: 'NODE_READ' }],
  ['/nodes/defaults/evm-node', { GET: 'NODE_READ' }],
  [nodes, { GET: 'NODE_READ', PUT: 'NODE_UPDATE', DELETE: 'NODE_DELETE' }],
  [`${nodes}/start`, { POST: 'NODE_OPERATE' }],
  [`${nodes}/stop`, { POST: 'NODE_OPERATE' }],
  [`${nodes}/restart`, { POST: 'NODE_OPERATE' }],
  [`${nodes}/logs`, { GET: 'NODE_LOGS_READ' }],
  [`${nodes}/events`, { GET: 'NODE_READ' }],
  [`${nodes}/certificates/renew`, { POST: 'CERTIFICATE_RENEW' }],

  [cn, { GET: 'NETWORK_READ', POST: 'NETWORK_CREATE' }],
  [cnId, { GET: 'NETWORK_READ', DELETE: 'NETWORK_DELETE' }],
  [`${cn}/by-name/{name}`, { GET: 'NETWORK_READ' }],
  [`${cn}/import`, { POST: 'NETWORK_CREATE' }],
  [`${cnId}/nodes`, { GET: 'NETWORK_READ', POST: 'NODE_CREATE' }],
  [`${cnId}/peers/{peerId}/join`, { POST: 'NETWORK_UPDATE' }],
  [`${cnId}/orderers/{ordererId}/join`, { POST: 'NETWORK_UPDATE' }],
  [`${cnId}/anchor-peers`, { POST: 'NETWORK_UPDATE' }],
  [`${cnId}/channel-config`, { GET: 'NETWORK_READ' }],
  [`${cnId}/blocks`, { GET: 'LEDGER_READ' }],
  [`${cnId}/blocks/{blockNum}`, { GET: 'LEDGER_READ' }],
  [`${cnId}/info`, { GET: 'LEDGER_READ' }],
  [`${cnId}/transactions/{txId}`, { GET: 'LEDGER_READ' }],
  [`${cnId}/map`, { GET: 'NETWORK_READ' }],

  [evm, { GET: 'NETWORK_READ', POST: 'NETWORK_CREATE' }],
  [`${evm}/{id}`, { GET: 'NETWORK_READ', DELETE: 'NETWORK_DELETE' }],
  [`${evm}/import`, { POST: 'NETWORK_CREATE' }],
  [`${evm}/{id}/nodes`, { GET: 'NETWORK_READ' }],
  [`${evm}/{id}/map`, { GET: 'NETWORK_READ' }],
  ['/networks', { POST: 'NETWORK_CREATE' }],
  [`${net}/nodes`, { POST: 'NODE_CREATE' }],
  [`${net}/start`, { POST: 'NETWORK_OPERATE' }],
  [`${net}/validators`, { GET: 'NETWORK_READ' }],
  [`${net}/channels/{channelName}/config`, { GET: 'NETWORK_READ', PUT: 'NETWORK_UPDATE' }],
  [`${net}/channels/{channelName}/anchor-peers`, { PUT: 'NETWORK_UPDATE' }],

  ['/organizations', { GET: 'ORGANIZATION_READ', POST: 'ORGANIZATION_CREATE' }],
  [orgId, { GET: 'ORGANIZATION_READ', PUT: 'ORGANIZATION_UPDATE', DELETE: 'ORGANIZATION_DELETE' }],
  ['/organizations/by-mspid/{mspid}', { GET: 'ORGANIZATION_READ' }],
  [`${orgId}/keys`, { GET: 'KEY_READ', POST: 'KEY_CREATE' }],
  [`${orgId}/crl`, { GET: 'ORGANIZATION_READ' }],
  ['/keys/all', { GET: 'KEY_READ' }],
  ['/keys', { GET: 'KEY_READ', POST: 'KEY_CREATE' }],
  ['/keys/import', { POST: 'KEY_IMPORT' }],
  ['/keys/{id}', { GET: 'KEY_READ', DELETE: 'KEY_DELETE' }],
  ['/keys/{keyID}/sign', { POST: 'KEY_SIGN' }],
  ['/keys/{keyID}/sign-data', { POST: 'KEY_SIGN' }],
  [`${keyId}/certificate`, { GET: 'KEY_CERTIFICATE_READ' }],
  [`${keyId}/ca-certificate`, { GET: 'KEY_CERTIFICATE_READ' }],
  [`${keyId}/rotation`, { PUT: 'KEY_ROTATE' }],
  [`${keyId}/rotate`, { POST: 'KEY_ROTATE' }],
  [`${keyId}/renew`, { POST: 'CERTIFICATE_RENEW' }],
  ['/key-providers', { GET: 'KEY_PROVIDER_READ', POST: 'KEY_PROVIDER_CREATE' }],
  ['/key-providers/{id}', { GET: 'KEY_PROVIDER_READ', DELETE: 'KEY_PROVIDER_DELETE' }],
  ['/key-providers/{providerId}/vault/status', { GET: 'KEY_PROVIDER_READ' }],
  ['/key-providers/{providerId}/awskms/status', { GET: 'KEY_PROVIDER_READ' }],

  ['/backups/targets', { GET: 'BACKUP_READ', POST: 'BACKUP_TARGET_MANAGE' }],
  ['/backups/targets/{id}', { GET: 'BACKUP_READ', PUT: 'BACKUP_TARGET_MANAGE', DELETE: 'BACKUP_TARGET_MANAGE' }],
  ['/backup-targets', { GET: 'BACKUP_READ' }],
  ['/backups/schedules', { GET: 'BACKUP_READ', POST: 'BACKUP_SCHEDULE_MANAGE' }],
  ['/backups/schedules/{id}', { GET: 'BACKUP_READ', DELETE: 'BACKUP_SCHEDULE_MANAGE' }],
  ['/backups/schedules/{id}/enable', { PUT: 'BACKUP_SCHEDULE_MANAGE' }],
  ['/backups/schedules/{id}/disable', { PUT: 'BACKUP_SCHEDULE_MANAGE' }],
  ['/backups', { GET: 'BACKUP_READ', POST: 'BACKUP_CREATE' }],
  ['/backups/{id}', { GET: 'BACKUP_READ', DELETE: 'BACKUP_DELETE' }],

  [`${sc}/deploy`, { POST: 'CHAINCODE_MANAGE' }],
  [`${sc}/peer/{peerId}/chaincode/install`, { POST: 'CHAINCODE_MANAGE' }],
  [`${sc}/peer/{peerId}/chaincode/approve`, { POST: 'CHAINCODE_MANAGE' }],
  [`${sc}/peer/{peerId}/chaincode/commit`, { POST: 'CHAINCODE_MANAGE' }],
  [`${sc}/chaincodes`, { GET: 'CHAINCODE_READ', POST: 'CHAINCODE_MANAGE' }],
  [`${sc}/chaincodes/{chaincodeId}/invoke`, { POST: 'CHAINCODE_INVOKE' }],
  [`${sc}/chaincodes/{chaincodeId}/query`, { POST: 'CHAINCODE_INVOKE' }],
  ['/sc/evm/deploy', { POST: 'CONTRACT_DEPLOY' }],

  ['/metrics/defaults', { GET: 'METRICS_READ' }],
  ['/metrics/deploy', { POST: 'METRICS_MANAGE' }],
  ['/metrics/undeploy', { POST: 'METRICS_MANAGE' }],
  ['/metrics/start', { POST: 'METRICS_MANAGE' }],
  ['/metrics/stop', { POST: 'METRICS_MANAGE' }],
  ['/metrics/node/{id}', { GET: 'METRICS_READ' }],
  ['/metrics/status', { GET: 'METRICS_READ' }],

  ['/plugins', { GET: 'PLUGIN_READ', POST: 'PLUGIN_INSTALL' }],
  ['/plugins/available', { GET: 'PLUGIN_READ' }],
  [plugin, { GET: 'PLUGIN_READ', PUT: 'PLUGIN_INSTALL', DELETE: 'PLUGIN_INSTALL' }],
  [`${plugin}/deploy`, { POST: 'PLUGIN_OPERATE' }],
  [`${plugin}/stop`, { POST: 'PLUGIN_OPERATE' }],
  [`${plugin}/resume`, { POST: 'PLUGIN_OPERATE' }],

  ['/notifications/providers', { GET: 'NOTIFICATION_READ', POST: 'NOTIFICATION_MANAGE' }],
  ['/notifications/providers/{id}', { GET: 'NOTIFICATION_READ', PUT: 'NOTIFICATION_MANAGE', DELETE: 'NOTIFICATION_MANAGE' }],
  ['/notifications/providers/{id}/test', { POST: 'NOTIFICATION_MANAGE' }],
  ['/settings', { GET: 'SETTINGS_READ', POST: 'SETTINGS_UPDATE', PUT: 'SETTINGS_UPDATE' }],
  ['/settings/audit', { POST: 'AUDIT_CONFIGURE' }],
  ['/audit/logs', { GET: 'SYSTEM_MONITOR' }],
  ['/audit-logs', { GET: 'SYSTEM_MONITOR' }],
  ['/audit/logs/{id}', { GET: 'SYSTEM_MONITOR' }],
  ['/audit-logs/{logId}', { GET: 'SYSTEM_MONITOR' }],
  ['/audit-logs/verify', { POST: 'SYSTEM_MONITOR' }],
  ['/reports/activity', { POST: 'REPORT_GENERATE' }],
  ['/reports/user-access', { POST: 'REPORT_GENERATE' }],

  ['/webhooks', { GET: 'system:configure', POST: 'system:configure' }],
  [hook, { GET: 'system:configure', PUT: 'system:configure', DELETE: 'system:configure' }],
  [`${hook}/test`, { POST: 'system:configure' }],
  [`${hook}/deliveries`, { GET: 'system:configure' }],
  [`${hook}/replay/{deliveryId}`, { POST: 'system:configure' }],
  ['/webhooks/events', { GET: 'system:configure' }],

  ['/networks/templates/export/{id}', { GET: 'TEMPLATE_READ' }],
  ['/networks/templates/validate', { POST: 'TEMPLATE_IMPORT' }],
  ['/networks/templates/import', { POST: 'TEMPLATE_IMPORT' }],
  ['/nodesharing/invitations', { POST: 'SHARING_MANAGE' }],
  // Accepting an invitation trusts another instance: the permission that configures the system.
  ['/nodesharing/accept', { POST: 'system:configure' }],
  ['/nodesharing/sync', { POST: 'SHARING_MANAGE' }],
  ['/nodesharing/peers', { GET: 'SHARING_READ' }],
]);

/**
 * Endpoints SPEC.md leaves to us. API keys: /api-keys lists the caller's own keys, or every
 * user's with ?all=true (API_KEY_MANAGE, checked by the handler); DELETE of another user's key
 * likewise needs API_KEY_MANAGE on top of API_KEY_REVOKE.
 */
export const designedEndpointPermissions: readonly EndpointPermission[] = rows([
  // What the consortium quick start needs (programs, ports, names, key provider), checked before its first step.
  ['/networks/consortium/quickstart/check', { POST: 'NETWORK_CREATE' }],
  // Creates that make several things (issue 35 item 4): a client-driven one started and ended, any failed one read and undone in one call.
  ['/creations', { POST: 'NETWORK_CREATE' }],
  // Rolling upgrade of a consortium node to a newer Fabric release (issue 37 item 7).
  ['/nodes/{id}/upgrade', { POST: 'NODE_UPDATE' }],
  // An organization's MSP in a channel updated: CAs added, admins set (issue 37 item 4).
  ['/networks/consortium/{id}/channels/{channelName}/organizations/{mspId}/msp', { PUT: 'NETWORK_UPDATE' }],
  // Orderer organizations of a channel: one added, endpoints set, one removed (issue 37 item 4).
  ['/networks/consortium/{id}/channels/{channelName}/orderer-organizations', { POST: 'NETWORK_UPDATE' }],
  ['/networks/consortium/{id}/channels/{channelName}/orderer-organizations/{mspId}/endpoints', { PUT: 'NETWORK_UPDATE' }],
  ['/networks/consortium/{id}/channels/{channelName}/orderer-organizations/{mspId}', { DELETE: 'NETWORK_UPDATE' }],
  ['/creations/{id}', { GET: 'NETWORK_READ' }],
  ['/creations/{id}/end', { POST: 'NETWORK_CREATE' }],
  ['/creations/{id}/undo', { POST: 'NETWORK_DELETE' }],
  // Keys no resource uses any more, deleted together (issue 35 item 5); refused whole while one is in use.
  ['/keys/delete', { POST: 'KEY_DELETE' }],
  // A channel's raft consenter set (issue 37): listed, an orderer added or removed, one's TLS certificate replaced; each with a dry run.
  [`${cnId}/channels/{channelName}/consenters`, { GET: 'NETWORK_READ', POST: 'NETWORK_UPDATE' }],
  [`${cnId}/channels/{channelName}/consenters/{nodeId}`, { DELETE: 'NETWORK_UPDATE' }],
  [`${cnId}/channels/{channelName}/consenters/{nodeId}/certificate`, { PUT: 'NETWORK_UPDATE' }],
  // A network's consensus migrated from etcdraft to smartbft (issue 37 item 7), with a dry run; the last migration's progress.
  [`${cnId}/consensus/migrate`, { POST: 'NETWORK_UPDATE' }],
  [`${cnId}/consensus/migration`, { GET: 'NETWORK_READ' }],
  // An application organization removed from the channel (issue 37), with a dry run.
  [`${cnId}/channels/{channelName}/organizations/{mspId}`, { DELETE: 'NETWORK_UPDATE' }],
  // A node leaving the channel (issue 37): an orderer through its channel participation API, its consenter entry removed first.
  [`${cnId}/orderers/{ordererId}/leave`, { POST: 'NETWORK_UPDATE' }],
  [`${cnId}/peers/{peerId}/leave`, { POST: 'NETWORK_UPDATE' }],
  ['/api-keys', { GET: 'API_KEY_READ', POST: 'API_KEY_CREATE' }],
  ['/api-keys/{id}', { GET: 'API_KEY_READ', DELETE: 'API_KEY_REVOKE' }],
  // The audit chain's signed checkpoints (issue 36): read and signed by whoever verifies the chain.
  ['/audit-logs/checkpoints', { GET: 'SYSTEM_MONITOR', POST: 'SYSTEM_MONITOR' }],
  // What an invitation says and the fingerprint of the key that signed it, confirmed before accepting.
  ['/nodesharing/invitations/preview', { POST: 'system:configure' }],
  // Ends a node-sharing relationship: the peer's requests are refused from then on.
  ['/nodesharing/peers/{id}', { DELETE: 'SHARING_MANAGE' }],
  // LedgerX networks (issue 22; SPEC names the platform but not these paths), shaped like the consortium network routes.
  [lx, { GET: 'NETWORK_READ', POST: 'NETWORK_CREATE' }],
  [`${lx}/quickstart`, { POST: 'NETWORK_CREATE' }],
  [`${lx}/quickstart/{id}`, { GET: 'NETWORK_READ' }],
  [lxId, { GET: 'NETWORK_READ', DELETE: 'NETWORK_DELETE' }],
  [`${lx}/by-name/{name}`, { GET: 'NETWORK_READ' }],
  [`${lxId}/nodes`, { GET: 'NETWORK_READ' }],
  [`${lxId}/genesis`, { GET: 'NETWORK_READ' }],
  [`${lxId}/orderer-groups/{nodeId}/join`, { POST: 'NETWORK_UPDATE' }],
  [`${lxId}/committers/{nodeId}/join`, { POST: 'NETWORK_UPDATE' }],
  [`${lxId}/namespaces`, { GET: 'LEDGER_READ', POST: 'NETWORK_UPDATE' }],
  [`${lxId}/info`, { GET: 'LEDGER_READ' }],
  [`${lxId}/blocks`, { GET: 'LEDGER_READ' }],
  [`${lxId}/blocks/{blockNum}`, { GET: 'LEDGER_READ' }],
  [`${lxId}/transactions/{txId}`, { GET: 'LEDGER_READ' }],
  [`${lxId}/map`, { GET: 'NETWORK_READ' }],
  // Records a channel a peer instance shares (its block 0), so this instance's peers can join it.
  ['/nodesharing/peers/{id}/networks/{networkId}/import', { POST: 'NETWORK_CREATE' }],
  // Channel config updates signed across instances (sharing.proposal.*, sharing.signature.*).
  ['/nodesharing/proposals', { GET: 'SHARING_READ', POST: 'NETWORK_UPDATE' }],
  ['/nodesharing/proposals/{id}', { GET: 'SHARING_READ' }],
  ['/nodesharing/proposals/{id}/update', { GET: 'SHARING_READ' }],
  ['/nodesharing/proposals/{id}/signatures', { POST: 'NETWORK_UPDATE' }],
  ['/nodesharing/proposals/{id}/sign', { POST: 'NETWORK_UPDATE' }],
  ['/nodesharing/proposals/{id}/submit', { POST: 'NETWORK_UPDATE' }],
  // A chaincode server's TLS certificate reissued by its organization's TLS CA, the server restarted (as POST /nodes/{id}/certificates/renew for a node).
  [`${sc}/chaincodes/{chaincodeId}/server/certificates/renew`, { POST: 'CERTIFICATE_RENEW' }],
  // Chaincode definitions shared with the peer instance holding another organization of the channel (sharing.chaincode.*).
  ['/nodesharing/chaincodes', { POST: 'CHAINCODE_MANAGE' }],
  // The contracts deployed on an evm network through POST /sc/evm/deploy (what a template export lists).
  ['/networks/evm/{id}/contracts', { GET: 'NETWORK_READ' }],
  // What POST /networks/evm fills in for the genesis fields a request leaves out (the next free chain id among them); the console's form shows it.
  ['/networks/evm/defaults', { GET: 'NETWORK_READ' }],
  // Calling a contract deployed through the service, like chaincode invoke and query (one permission for
  // both, as CHAINCODE_INVOKE): a query runs a function without a transaction, an invoke is signed.
  ['/sc/evm/contracts/{contractId}/query', { POST: 'CONTRACT_INVOKE' }],
  ['/sc/evm/contracts/{contractId}/invoke', { POST: 'CONTRACT_INVOKE' }],
  // Any contract at an address, its ABI given with the call (nothing recorded).
  ['/sc/evm/query', { POST: 'CONTRACT_INVOKE' }],
  ['/sc/evm/invoke', { POST: 'CONTRACT_INVOKE' }],
  // The evm explorer (issue 38): blocks, transactions, accounts and search, read from a running node.
  ['/networks/evm/{id}/blocks', { GET: 'NETWORK_READ' }],
  ['/networks/evm/{id}/blocks/{numberOrHash}', { GET: 'NETWORK_READ' }],
  ['/networks/evm/{id}/transactions/{hash}', { GET: 'NETWORK_READ' }],
  ['/networks/evm/{id}/accounts/{address}', { GET: 'NETWORK_READ' }],
  ['/networks/evm/{id}/search', { GET: 'NETWORK_READ' }],
  // The JSON-RPC gateway: reads only are forwarded (a POST that changes nothing), so a read permission.
  ['/networks/evm/{id}/rpc', { POST: 'NETWORK_READ' }],
  ['/networks/evm/{id}/nodes/{nodeId}/rpc', { POST: 'NETWORK_READ' }],
  // How to sign in (OIDC and/or local passwords) and the OIDC code flow: before any identity exists.
  ['/auth/providers', { GET: PUBLIC }],
  ['/auth/oidc/login', { GET: PUBLIC }],
  ['/auth/oidc/callback', { GET: PUBLIC }],
  ['/permissions', { GET: 'ROLE_READ' }],
  // Node hosts (issue 25; SPEC has one host per service): remote Docker Engines nodes are placed on.
  ['/hosts', { GET: 'HOST_READ', POST: 'HOST_MANAGE' }],
  ['/hosts/{id}', { GET: 'HOST_READ', PUT: 'HOST_MANAGE', DELETE: 'HOST_MANAGE' }],
  ['/settings/history', { GET: 'SETTINGS_READ' }],
  // Revoking a certificate is the last step of the SPEC's manual key rotation.
  ['/keys/{keyId}/revoke', { POST: 'KEY_ROTATE' }],
  // The CRL of any CA key (an organization's TLS CA, an imported CA); /organizations/{id}/crl serves the signing CA's.
  ['/keys/{keyId}/crl', { GET: 'KEY_READ' }],
  // Validator voting of BFT evm networks (SPEC Limits "validator voting"; JSON-RPC qbft_proposeValidatorVote etc.).
  ['/networks/{networkId}/validators/votes', { GET: 'NETWORK_READ', POST: 'NETWORK_UPDATE' }],
  ['/networks/{networkId}/validators/votes/{address}', { DELETE: 'NETWORK_UPDATE' }],
  // Per-service state and output of a deployed plugin (SPEC: "status, per-service state and logs come from the engine").
  ['/plugins/{name}/logs', { GET: 'PLUGIN_OPERATE' }],
  // A whole network stopped or restarted (issue 35; SPEC shows only POST /networks/{networkId}/start).
  ['/networks/{networkId}/stop', { POST: 'NETWORK_OPERATE' }],
  ['/networks/{networkId}/restart', { POST: 'NETWORK_OPERATE' }],
  // Applications of an organization (issue 37 item 8): its Fabric connection profile and client identities.
  [`${orgId}/connection-profile`, { GET: 'ORGANIZATION_READ' }],
  [`${orgId}/identities`, { GET: 'KEY_READ', POST: 'KEY_CREATE' }],
  [`${orgId}/identities/{identityId}`, { GET: 'KEY_READ' }],
  [`${orgId}/identities/{identityId}/revoke`, { POST: 'KEY_ROTATE' }],
  [`${orgId}/identities/{identityId}/key/export`, { POST: 'KEY_EXPORT' }],
  // The organization's CRL put into a channel's config (its MSP's revocation_list).
  ['/networks/consortium/{id}/organizations/{organizationId}/crl', { POST: 'NETWORK_UPDATE' }],
]);

/** The permission of one endpoint, by SPEC path template; undefined when none is declared. */
export function permissionForEndpoint(method: string, path: string): EndpointAccess | undefined {
  const m = method.toUpperCase();
  return [...endpointPermissions, ...designedEndpointPermissions].find((e) => e.method === m && e.path === path)?.permission;
}

/** The role table as markdown: one row per permission, a check per role that holds it. */
export function permissionTableMarkdown(): string {
  const roles: Role[] = ['ADMIN', 'OPERATOR', 'VIEWER'];
  const lines = [
    '| Permission | Description | ADMIN | OPERATOR | VIEWER |',
    '|---|---|:-:|:-:|:-:|',
    ...PERMISSIONS.map((p) => `| \`${p}\` | ${permissionCatalog[p]} | ${roles.map((r) => (hasPermission(r, p) ? 'yes' : '-')).join(' | ')} |`),
  ];
  return `${lines.join('\n')}\n`;
}
