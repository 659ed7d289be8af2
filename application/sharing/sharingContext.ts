// What node sharing's routes and its instance-to-instance API share: the sharing port, this
// instance's state in the node-sharing stream, its signing identity (a P-256 key created once
// in the default key provider; the provider signs, the key never leaves it) and the node
// metadata it shows to peers.
import { AppError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing, type NodeSharingState, type NodeSharingEvent, type PeerMetadata, type SharedNetwork, type SharedNode, type SharedOrganization } from '../../domain/sharing/nodeSharing.ts';
import { listOrganizations } from '../../projections/organizations.ts';
import { listConsortiumNetworks } from '../../projections/consortium/consortiumNetworks.ts';
import type { DerSigner, SharingDeps, SharingTls } from '../../domain/sharing/sharingPorts.ts';
import type { KeySpec } from '../../domain/keys/keyProvider.ts';
import { defaultKeyProviderId } from '../../projections/keyProviders.ts';
import { getKey } from '../../projections/keys.ts';
import { listNodes } from '../../projections/nodes.ts';
import { runCommand } from '../commands.ts';
import { createKey, type CommandInput } from '../keys/keyCreation.ts';
import { consortiumNodeRecord } from '../consortium/consortiumNodeRecord.ts';
import type { AppDeps } from '../deps.ts';

export const INVITATION_AUDIENCE = 'lnm-nodesharing-invitation';
export const PEER_AUDIENCE = 'lnm-nodesharing-peer';
const P256: KeySpec = { algorithm: 'EC', curve: 'P-256' };

export function sharingOf(deps: AppDeps): SharingDeps & { tls: SharingTls } {
  if (!deps.sharing?.tls) throw new AppError(503, 'SHARING_NOT_CONFIGURED', 'Node sharing needs the instance-to-instance listener: set LNM_SHARING_PORT (and LNM_SHARING_HOST to the address peers reach this instance at).');
  return deps.sharing as SharingDeps & { tls: SharingTls };
}

export async function sharingState(deps: AppDeps): Promise<NodeSharingState> {
  const events = await deps.store.readStream(NODE_SHARING_STREAM);
  return events.reduce((s, e) => nodeSharing.evolve(s, e as unknown as NodeSharingEvent), nodeSharing.initialState());
}

export interface InstanceIdentity {
  keyId: number;
  publicKeyPem: string;
  sign: DerSigner;
}

/** This instance's signing identity, made on first use. */
export async function instanceIdentity(input: CommandInput): Promise<InstanceIdentity> {
  const { deps } = input;
  let keyId = (await sharingState(deps)).identityKeyId;
  if (keyId === null) {
    keyId = await createKey(input, { name: 'node-sharing-identity', description: 'signs this instance\'s node-sharing invitations and requests', purpose: 'GENERAL', providerId: await defaultKeyProviderId(deps.pool), organizationId: null, spec: P256 });
    try {
      await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'CreateSharingIdentity', keyId, at: deps.clock().toISOString() });
    } catch {
      // Another request made it first: use that one.
      keyId = (await sharingState(deps)).identityKeyId!;
    }
  }
  const key = (await getKey(deps.pool, keyId))!;
  const provider = await deps.keys.providers.get(key.providerId);
  return { keyId, publicKeyPem: key.publicKey, sign: (data) => provider.sign(key.handle, P256, { data, hash: 'sha256' }) };
}

/** A short-lived token a request to a peer carries: who sends it, to whom, over which body. */
export async function peerRequestToken(deps: AppDeps, me: InstanceIdentity, peerInstanceId: string, bodyHash: string): Promise<string> {
  const now = Math.floor(deps.clock().getTime() / 1000);
  return sharingOf(deps).signJwt({ iss: deps.config.instanceId, sub: peerInstanceId, aud: PEER_AUDIENCE, iat: now, exp: now + 60, jti: deps.newId(), bh: bodyHash }, me.publicKeyPem, me.sign, false);
}

const CERT = /^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/;
const publicCertificate = (pem: string | null | undefined) => (pem && CERT.test(pem.trim()) ? pem.trim() + '\n' : null);

/** This instance's nodes as peers see them: an explicit list of public fields, nothing else. */
export async function localSharedNodes(deps: AppDeps): Promise<SharedNode[]> {
  const { items } = await listNodes(deps.pool, { limit: 10_000, offset: 0 });
  const out: SharedNode[] = [];
  for (const n of items) {
    if (n.platform === 'CONSORTIUM' && n.consortiumConfig) {
      const record = await consortiumNodeRecord(deps, n);
      const c = n.consortiumConfig as unknown as Record<string, unknown>;
      const ports = Object.fromEntries(Object.entries(c).filter(([k, v]) => /port$/i.test(k) && typeof v === 'number')) as Record<string, number>;
      const endpoint = typeof c.externalEndpoint === 'string' ? c.externalEndpoint : null;
      out.push({
        id: n.id, name: n.name, platform: n.platform, nodeType: n.nodeType, role: n.role, status: n.status, mspId: record?.mspId ?? null,
        host: endpoint ? endpoint.slice(0, endpoint.lastIndexOf(':')) : '127.0.0.1', ports, endpoint,
        tlsCertificate: publicCertificate(record ? (await getKey(deps.pool, record.tlsKeyId))?.certificate?.pem : null),
        identityCertificate: publicCertificate(record ? (await getKey(deps.pool, record.identityKeyId))?.certificate?.pem : null),
        validatorAddress: null,
      });
    } else {
      const c = n.config as unknown as Record<string, unknown>;
      const ports = Object.fromEntries(Object.entries(c ?? {}).filter(([k, v]) => /port$/i.test(k) && typeof v === 'number')) as Record<string, number>;
      out.push({
        id: n.id, name: n.name, platform: n.platform, nodeType: n.nodeType, role: n.role, status: n.status, mspId: null, host: '127.0.0.1', ports,
        endpoint: typeof c?.rpcHttpPort === 'number' ? `127.0.0.1:${c.rpcHttpPort}` : null, tlsCertificate: null, identityCertificate: null, validatorAddress: n.validatorAddress,
      });
    }
  }
  return out;
}

/** This instance's organizations as public MSPs (those whose CA and admin the service holds). */
export async function localSharedOrganizations(deps: AppDeps): Promise<SharedOrganization[]> {
  if (!deps.consortium) return [];
  const { items } = await listOrganizations(deps.pool, 1000, 0);
  const out: SharedOrganization[] = [];
  for (const o of items) {
    const msp = await deps.consortium.credentials.organizationMsp(o.id).catch(() => null);
    if (!msp) continue;
    const certs = [msp.signCaCertPem, msp.tlsCaCertPem, msp.adminCertPem].map(publicCertificate);
    if (certs.some((c) => c === null)) continue;
    out.push({ mspId: msp.mspId, signCaCertPem: certs[0]!, tlsCaCertPem: certs[1]!, adminCertPem: certs[2]! });
  }
  return out;
}

/** The channels of this instance that one of the peer's organizations is a member of, with block 0 to join them. */
export async function localSharedNetworks(deps: AppDeps, peerMspIds: string[]): Promise<SharedNetwork[]> {
  if (!peerMspIds.length) return [];
  const { items } = await listConsortiumNetworks(deps.pool, 1000, 0);
  return items
    .filter((n) => n.organizations.some((o) => peerMspIds.includes(o.mspId)))
    .map((n) => ({
      networkId: n.id, name: n.name, channelName: n.channelName, genesisBlock: n.genesisBlock, ordererEndpoints: n.ordererEndpoints,
      organizations: n.organizations.map((o) => o.mspId), ordererOrganizations: n.ordererOrganizations.map((o) => o.mspId),
    }));
}

/** Everything this instance shows a peer: nodes, organizations, and the channels the peer's organizations belong to. */
export async function localMetadata(deps: AppDeps, peerMspIds: string[]): Promise<Required<PeerMetadata>> {
  return { nodes: await localSharedNodes(deps), organizations: await localSharedOrganizations(deps), networks: await localSharedNetworks(deps, peerMspIds) };
}
