// The rules removing an orderer organization from a channel's /Channel/Orderer is checked against,
// on the channel's current config (configtxlator's JSON), before anything is computed or submitted:
//   (unknown organization)              not an orderer organization of the channel: 404
//   (consensus)                         etcdraft or BFT only: 400
//   last-orderer-organization           a channel keeps one (409 LAST_ORDERER_ORGANIZATION)
//   orderer-organization-consenters     no consenter of the channel is the organization's: etcdraft,
//                                       a consenter whose server TLS certificate one of its TLS CAs
//                                       issued; BFT, a ConsenterMapping entry carrying its MSP id (or
//                                       such a certificate). Its orderers would order a channel whose
//                                       config no longer knows them; on BFT the BlockValidation
//                                       policy (a quorum of the consenters' identities, each named with
//                                       its MSP id) would name an MSP the channel no longer has. 409
//                                       ORDERER_ORGANIZATION_CONSENTERS naming each consenter: remove
//                                       them from the consenters first (which recomputes BlockValidation)
//   policy-unsatisfiable                /Channel and /Channel/Orderer Readers, Writers and Admins stay
//                                       satisfiable by the admins of the organizations left (a Signature
//                                       rule needing the leaving organization's admin, 409 POLICY_UNSATISFIABLE
//                                       naming each)
// Everything else of the organization in a channel (its MSP, its policies and, V3_0, its orderer
// Endpoints) lives in its group under /Channel/Orderer and leaves with it.
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import type { ChannelConfigJson } from './consortiumChannelPorts.ts';
import { ordererPoliciesLostWithout, policyTreeOf } from './policyRules.ts';

type RaftMetadata = { consenters?: Array<{ host: string; port: number; server_tls_cert: string }> };
type ConsenterMapping = { consenter_mapping?: Array<{ id: number; host: string; port: number; msp_id: string; server_tls_cert: string }> };

/**
 * Throws the 4xx of the first rule removing `mspId` breaks. `issuedByOrganization(serverTlsCertB64)`:
 * whether one of the organization's TLS CAs (its MSP's tls_root_certs and tls_intermediate_certs)
 * issued that consenter certificate (base64 PEM, as the config carries it).
 */
export function assertOrdererOrganizationRemoval(config: ChannelConfigJson, channelName: string, mspId: string, issuedByOrganization: (serverTlsCertB64: string) => boolean): void {
  const orderer = config.channel_group.groups.Orderer;
  if (!orderer?.groups?.[mspId]) throw new NotFoundError('Orderer organization', `${mspId} of channel ${channelName}`);
  const type = (orderer.values.ConsensusType?.value as { type?: string } | undefined)?.type;
  if (type !== 'etcdraft' && type !== 'BFT') {
    throw new ValidationError(`The channel's consensus is ${type ?? 'unknown'}: removing an orderer organization here is for etcdraft and BFT channels.`, [{ field: 'channelName', message: `not an etcdraft or BFT channel: ${type ?? 'unknown'}` }]);
  }
  if (Object.keys(orderer.groups).length === 1) {
    throw new ConflictError(`${mspId} is the last orderer organization of channel ${channelName}: a channel without one has no orderers. Nothing was submitted.`, { rule: 'last-orderer-organization' }, 'LAST_ORDERER_ORGANIZATION');
  }
  const held = type === 'etcdraft'
    ? ((orderer.values.ConsensusType?.value as { metadata?: RaftMetadata } | undefined)?.metadata?.consenters ?? []).filter((c) => issuedByOrganization(c.server_tls_cert))
    : ((orderer.values.Orderers?.value as ConsenterMapping | undefined)?.consenter_mapping ?? []).filter((c) => c.msp_id === mspId || issuedByOrganization(c.server_tls_cert));
  if (held.length) {
    const names = held.map((c) => `${c.host}:${c.port}`);
    const why = type === 'etcdraft' ? `with a TLS certificate of ${mspId}'s CA` : `of ${mspId} in its ConsenterMapping (and the BlockValidation policy computed from it)`;
    throw new ConflictError(
      `Rule orderer-organization-consenters: ${names.join(', ')} ${held.length > 1 ? 'are consenters' : 'is a consenter'} of channel ${channelName} ${why}; remove ${held.length > 1 ? 'them' : 'it'} from the channel's consenters first. Nothing was submitted.`,
      { rule: 'orderer-organization-consenters', consenters: names },
      'ORDERER_ORGANIZATION_CONSENTERS',
    );
  }
  const lost = ordererPoliciesLostWithout(policyTreeOf(config), mspId);
  if (lost.length) {
    throw new ConflictError(
      `Rule policy-unsatisfiable: without ${mspId}, no set of the remaining organizations' admins could satisfy ${lost.join(', ')} of channel ${channelName}: set ${lost.length > 1 ? 'them' : 'it'} to rules that do not need ${mspId} first. Nothing was submitted.`,
      { rule: 'policy-unsatisfiable', policies: lost },
      'POLICY_UNSATISFIABLE',
    );
  }
}
