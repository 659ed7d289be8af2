// An organization's connection profile in Fabric's common connection profile format (what the
// Fabric gateway SDKs and fabric-network load as they are): name, version, client.organization,
// organizations (mspid, peers, certificateAuthorities), peers and orderers (url
// grpcs://<external endpoint>, tlsCACerts.pem: the TLS CA of the node's organization,
// grpcOptions ssl-target-name-override: the node's host name, which its TLS certificate names)
// and certificateAuthorities (the organization's signing CA: its name and the TLS root).
// The service holds the CA as a key and a certificate, with no Fabric CA server: the CA entry has
// no url; identities are issued through POST /organizations/{id}/identities instead.
// Without a channel: the organization's own peers and orderers and the orderers of the channels
// its peers are members of. With one: every organization of that channel, the peers of it this
// service runs, its orderers, and a `channels` section.
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import type { ConsortiumNodeConfig } from '../../domain/consortium/consortiumNode.ts';
import { loadKey } from '../../domain/keys/certificateRenewal.ts';
import { organizationDomain } from '../../domain/organizations/organizationCertificates.ts';
import { getOrganization, type OrganizationRow } from '../../projections/organizations.ts';
import { getKey } from '../../projections/keys.ts';
import { listNodes, type NodeRow } from '../../projections/nodes.ts';
import { consortiumNetworkMembers, getConsortiumNetworkByChannel, nodeNetworks, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import type { AppDeps } from '../deps.ts';

export interface ProfileNode {
  url: string;
  tlsCACerts: { pem: string };
  grpcOptions: { 'ssl-target-name-override': string; hostnameOverride: string };
}

export interface ConnectionProfile {
  name: string;
  version: string;
  client: { organization: string; connection: { timeout: { peer: { endorser: string }; orderer: string } } };
  channels?: Record<string, { orderers: string[]; peers: Record<string, { endorsingPeer: boolean; chaincodeQuery: boolean; ledgerQuery: boolean; eventSource: boolean }> }>;
  organizations: Record<string, { mspid: string; peers: string[]; orderers: string[]; certificateAuthorities: string[] }>;
  peers: Record<string, ProfileNode>;
  orderers: Record<string, ProfileNode>;
  certificateAuthorities: Record<string, { caName: string; tlsCACerts: { pem: string[] } }>;
}

const NODE_TYPES = new Set(['CONSORTIUM_PEER', 'CONSORTIUM_ORDERER']);

async function tlsCaPem(deps: AppDeps, org: OrganizationRow): Promise<string> {
  const tls = org.tlsKeyId ? await getKey(deps.pool, org.tlsKeyId) : null;
  if (!tls?.certificate) throw new ValidationError(`Organization ${org.mspId} has no TLS CA certificate.`, [{ field: 'id', message: 'no TLS CA' }]);
  return tls.certificate.pem;
}

async function caName(deps: AppDeps, org: OrganizationRow): Promise<string> {
  if (!org.signKeyId) return `ca.${organizationDomain(org.name)}`;
  const ca = await loadKey(deps.store, org.signKeyId);
  return ca.certificate?.profile?.commonName ?? `ca.${organizationDomain(org.name)}`;
}

function profileNode(node: NodeRow, tlsCa: string): ProfileNode {
  const c = node.consortiumConfig as ConsortiumNodeConfig;
  return { url: `grpcs://${c.externalEndpoint}`, tlsCACerts: { pem: tlsCa }, grpcOptions: { 'ssl-target-name-override': c.hostname, hostnameOverride: c.hostname } };
}

export async function connectionProfile(deps: AppDeps, organizationId: number, channel?: string): Promise<ConnectionProfile> {
  const org = await getOrganization(deps.pool, organizationId);
  if (!org) throw new NotFoundError('Organization', organizationId);
  const ownNodes = (await listNodes(deps.pool, { limit: 10_000, offset: 0, platform: 'CONSORTIUM', organizationId })).items.filter((n) => NODE_TYPES.has(n.nodeType));
  let network: ConsortiumNetworkRow | null = null;
  let nodes: NodeRow[];
  if (channel !== undefined) {
    network = await getConsortiumNetworkByChannel(deps.pool, channel);
    if (!network) throw new NotFoundError('Channel', channel);
    const msps = [...network.organizations, ...network.ordererOrganizations].map((o) => o.mspId);
    if (!msps.includes(org.mspId)) throw new ValidationError(`${org.mspId} is not an organization of channel ${channel} (${[...new Set(msps)].join(', ')}).`, [{ field: 'channel', message: `${org.mspId} is not a member` }]);
    const members = await consortiumNetworkMembers(deps.pool, network.id);
    nodes = (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items.filter((n) => NODE_TYPES.has(n.nodeType));
  } else {
    const networkIds = new Set<number>();
    for (const p of ownNodes.filter((n) => n.nodeType === 'CONSORTIUM_PEER')) for (const m of await nodeNetworks(deps.pool, p.id)) networkIds.add(m.networkId);
    const ordererIds = new Set<number>();
    for (const id of networkIds) for (const m of await consortiumNetworkMembers(deps.pool, id)) if (m.role === 'orderer') ordererIds.add(m.nodeId);
    const others = ordererIds.size ? (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: [...ordererIds] })).items : [];
    nodes = [...ownNodes, ...others.filter((n) => !ownNodes.some((o) => o.id === n.id))];
  }
  nodes.sort((a, b) => a.id - b.id);

  const orgs = new Map<number, OrganizationRow>([[org.id, org]]);
  for (const n of nodes) if (n.organizationId !== null && !orgs.has(n.organizationId)) orgs.set(n.organizationId, (await getOrganization(deps.pool, n.organizationId))!);
  if (network) for (const o of [...network.organizations, ...network.ordererOrganizations]) if (o.organizationId !== null && !orgs.has(o.organizationId)) {
    const row = await getOrganization(deps.pool, o.organizationId);
    if (row) orgs.set(row.id, row);
  }
  const tls = new Map<number, string>();
  for (const o of orgs.values()) tls.set(o.id, await tlsCaPem(deps, o));

  const profile: ConnectionProfile = {
    name: network ? `${network.name}-${org.mspId}` : `${org.name}-${org.mspId}`.replace(/\s+/g, '-'),
    version: '1.0.0',
    client: { organization: org.mspId, connection: { timeout: { peer: { endorser: '300' }, orderer: '300' } } },
    organizations: {},
    peers: {},
    orderers: {},
    certificateAuthorities: {},
  };
  for (const o of orgs.values()) profile.organizations[o.mspId] = { mspid: o.mspId, peers: [], orderers: [], certificateAuthorities: [] };
  for (const n of nodes) {
    const o = orgs.get(n.organizationId!);
    if (!o) continue;
    const entry = profileNode(n, tls.get(o.id)!);
    if (n.nodeType === 'CONSORTIUM_PEER') {
      profile.peers[n.name] = entry;
      profile.organizations[o.mspId].peers.push(n.name);
    } else {
      profile.orderers[n.name] = entry;
      profile.organizations[o.mspId].orderers.push(n.name);
    }
  }
  const name = await caName(deps, org);
  profile.certificateAuthorities[name] = { caName: name, tlsCACerts: { pem: [tls.get(org.id)!] } };
  profile.organizations[org.mspId].certificateAuthorities.push(name);
  if (network) {
    const peers = Object.fromEntries(Object.keys(profile.peers).map((p) => [p, { endorsingPeer: true, chaincodeQuery: true, ledgerQuery: true, eventSource: true }]));
    profile.channels = { [network.channelName]: { orderers: Object.keys(profile.orderers), peers } };
  }
  return profile;
}
