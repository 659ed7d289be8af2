// A channel's orderer organizations (issue 37 item 4): one added to /Channel/Orderer (an
// organization of this service or one a sharing peer shares, with its endpoints), one's orderer
// endpoints set, or one removed from /Channel/Orderer, each as a config update computed from the current config and shown as a
// diff (`dryRun`: nothing submitted), signed as /Channel/Orderer/Admins requires (the orderer
// organizations' admins; a 409 names those this service does not hold).
//
// Removal rules (domain/consortium/ordererOrganizationRules.ts), checked first against the current
// config, nothing submitted on a refusal: last-orderer-organization (409), orderer-organization-
// consenters (409 naming each consenter of the organization: raft by its TLS CA, BFT by the MSP id
// of its ConsenterMapping entry; remove them from the consenters first), policy-unsatisfiable
// (409: a /Channel or /Channel/Orderer policy that would need the organization). etcdraft and BFT
// channels. On a BFT channel the update also carries BlockValidation recomputed from the
// ConsenterMapping (configUpdateChanges.ts; unchanged when it already is that policy).
// Adding: an organization already in /Channel/Orderer is a 409 (ORDERER_ORGANIZATION_EXISTS);
// etcdraft and BFT channels. On a BFT channel (V3_0: no global orderer addresses) the group carries
// the organization's own OrdererEndpoints (the routes take at least one), and the update
// carries BlockValidation recomputed from the ConsenterMapping as a consenter change does (unchanged:
// the new organization holds no consenter yet); its orderer then joins as a follower and is made a
// consenter through the consenter route (consortiumConsenters.ts). Once added, /Channel/Orderer/Admins
// (MAJORITY of the orderer organizations' admins) counts its admin too, and its own endpoints need its admin.
import { X509Certificate } from 'node:crypto';
import type { CommandInput } from '../commands.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { assertOrdererOrganizationRemoval } from '../../domain/consortium/ordererOrganizationRules.ts';
import type { ChannelConfigJson } from '../../domain/consortium/consortiumChannelPorts.ts';
import { consortiumOf } from './consortiumContext.ts';
import { channelNetworkOr404, joinedOrderer } from './consortiumChannelAccess.ts';
import { applyPlannedChange, type PlannedConfigChange } from './consortiumConfigChange.ts';
import { memberMsp } from './consortiumChannelConfigUpdate.ts';
import type { AppDeps } from '../deps.ts';
import type { ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';

type Target = { networkId: number; channelName: string };

/** host:port, the host a DNS name or an IP address (IPv6 in brackets), the port 1-65535. */
const isEndpoint = (e: string) => {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?):(\d{1,5})$/.exec(e);
  return !!m && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
};
const b64Pem = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

async function currentConfig(deps: AppDeps, network: ConsortiumNetworkRow): Promise<ChannelConfigJson> {
  const orderer = await joinedOrderer(deps, network);
  return (await consortiumOf(deps).channels.fetchConfigBlock({ kind: 'orderer', endpoint: orderer.endpoint }, orderer.signer, network.channelName)).config;
}

function assertEndpoints(endpoints: string[]): void {
  const bad = endpoints.map((e, i) => ({ e, i })).filter(({ e }) => !isEndpoint(e));
  if (bad.length) throw new ValidationError(`Orderer endpoints are host:port: ${bad.map((b) => JSON.stringify(b.e)).join(', ')} ${bad.length > 1 ? 'are' : 'is'} not.`, bad.map((b) => ({ field: `endpoints[${b.i}]`, message: 'not host:port' })));
  if (new Set(endpoints).size !== endpoints.length) throw new ValidationError('An orderer endpoint is listed twice.', [{ field: 'endpoints', message: 'duplicates' }]);
}

/** Adding the organization (this service's, or one a sharing peer shares) to /Channel/Orderer with its endpoints (rules above), checked, nothing signed. */
export async function planOrdererOrganizationAdd(deps: AppDeps, target: Target, mspId: string, endpoints: string[]): Promise<PlannedConfigChange> {
  const network = await channelNetworkOr404(deps, target.networkId, target.channelName);
  assertEndpoints(endpoints);
  const { msp, organizationId } = await memberMsp(deps, mspId, 'msp_id');
  const config = await currentConfig(deps, network);
  const orderer = config.channel_group.groups.Orderer;
  const type = (orderer?.values.ConsensusType?.value as { type?: string } | undefined)?.type;
  if (type !== 'etcdraft' && type !== 'BFT') throw new ValidationError(`The channel's consensus is ${type ?? 'unknown'}: adding an orderer organization here is for etcdraft and BFT channels.`, [{ field: 'channelName', message: `not an etcdraft or BFT channel: ${type ?? 'unknown'}` }]);
  if (orderer.groups?.[mspId]) throw new ConflictError(`${mspId} is already an orderer organization of channel ${network.channelName}: set its endpoints instead. Nothing was submitted.`, { rule: 'orderer-organization-exists' }, 'ORDERER_ORGANIZATION_EXISTS');
  return {
    network, changes: [{ kind: 'addOrdererOrganization', organization: { ...msp, endpoints } }],
    record: { kind: 'addOrdererOrganization', organization: { organizationId, mspId }, endpoints },
  };
}

export async function addOrdererOrganization(input: CommandInput, target: Target, mspId: string, endpoints: string[], opts: { dryRun?: boolean } = {}) {
  return applyPlannedChange(input, await planOrdererOrganizationAdd(input.deps, target, mspId, endpoints), opts);
}

/** Setting the orderer organization's Endpoints (host:port each, in the order given), checked, nothing signed. */
export async function planOrdererEndpoints(deps: AppDeps, target: Target, mspId: string, endpoints: string[]): Promise<PlannedConfigChange> {
  const network = await channelNetworkOr404(deps, target.networkId, target.channelName);
  assertEndpoints(endpoints);
  const config = await currentConfig(deps, network);
  if (!config.channel_group.groups.Orderer?.groups?.[mspId]) throw new NotFoundError('Orderer organization', `${mspId} of channel ${network.channelName}`);
  return { network, changes: [{ kind: 'ordererEndpoints', mspId, endpoints }], record: { kind: 'ordererEndpoints', mspId, endpoints } };
}

export async function setOrdererEndpoints(input: CommandInput, target: Target, mspId: string, endpoints: string[], opts: { dryRun?: boolean } = {}) {
  return applyPlannedChange(input, await planOrdererEndpoints(input.deps, target, mspId, endpoints), opts);
}

/** Removing the orderer organization from /Channel/Orderer (rules above), checked, nothing signed. */
export async function planOrdererOrganizationRemoval(deps: AppDeps, target: Target, mspId: string): Promise<PlannedConfigChange> {
  const network = await channelNetworkOr404(deps, target.networkId, target.channelName);
  const config = await currentConfig(deps, network);
  const msp = (config.channel_group.groups.Orderer?.groups?.[mspId]?.values.MSP?.value as { config?: { tls_root_certs?: string[]; tls_intermediate_certs?: string[] } } | undefined)?.config;
  const cas = [...(msp?.tls_root_certs ?? []), ...(msp?.tls_intermediate_certs ?? [])].map((c) => new X509Certificate(b64Pem(c)));
  assertOrdererOrganizationRemoval(config, network.channelName, mspId, (certB64) => {
    try {
      const cert = new X509Certificate(b64Pem(certB64));
      return cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
    } catch {
      return false;
    }
  });
  return { network, changes: [{ kind: 'removeOrdererOrganization', mspId }], record: { kind: 'removeOrdererOrganization', mspId } };
}

export async function removeOrdererOrganization(input: CommandInput, target: Target, mspId: string, opts: { dryRun?: boolean } = {}) {
  return applyPlannedChange(input, await planOrdererOrganizationRemoval(input.deps, target, mspId), opts);
}
