// An organization's MSP in a channel updated (issue 37 item 4): a new root or intermediate CA (and
// TLS CA) added, its explicit admins set, as one config update computed from the current config
// and shown as a diff (`dryRun`: nothing submitted). The certificates are checked first, against
// the MSP as the channel has it plus what the request adds (400 MSP_CERTIFICATE naming the field):
// each parses as X.509 and is valid now; a root is a self-signed CA; an intermediate is a CA issued
// by a root or another intermediate of the MSP; an admin is no CA and is issued by a CA of the MSP.
// Signed for under the organization's own Admins policy (its group's mod policy), by its admin.
// Recorded as NetworkUpdated (change.kind mspUpdate, with the counts added and the admins set).
import { X509Certificate } from 'node:crypto';
import type { CommandInput } from '../commands.ts';
import type { AppDeps } from '../deps.ts';
import { NotFoundError, ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import type { ChannelConfigJson, MspUpdate } from '../../domain/consortium/consortiumChannelPorts.ts';
import { consortiumOf } from './consortiumContext.ts';
import { channelNetworkOr404, joinedOrderer } from './consortiumChannelAccess.ts';
import { applyPlannedChange, type PlannedConfigChange } from './consortiumConfigChange.ts';

const b64Pem = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

interface MspCas {
  roots: string[];
  intermediates: string[];
  tlsRoots: string[];
  tlsIntermediates: string[];
}

/** The organization's CA certificates as the channel has them (its Application group's MSP, else its Orderer group's). */
function currentCas(config: ChannelConfigJson, mspId: string): MspCas | null {
  const group = config.channel_group.groups.Application?.groups?.[mspId] ?? config.channel_group.groups.Orderer?.groups?.[mspId];
  const c = (group?.values?.MSP?.value as { config?: Record<string, string[] | undefined> } | undefined)?.config;
  if (!group || !c) return null;
  return { roots: (c.root_certs ?? []).map(b64Pem), intermediates: (c.intermediate_certs ?? []).map(b64Pem), tlsRoots: (c.tls_root_certs ?? []).map(b64Pem), tlsIntermediates: (c.tls_intermediate_certs ?? []).map(b64Pem) };
}

/** The 400 issues of an MSP update against the MSP it changes (none: it may be submitted). */
export function mspUpdateIssues(current: MspCas, update: MspUpdate, now: Date): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const parsed = (field: string, pem: string): X509Certificate | null => {
    try {
      const cert = new X509Certificate(pem);
      if (new Date(cert.validTo) < now || new Date(cert.validFrom) > now) issues.push({ field, message: `not valid now (valid from ${cert.validFrom} to ${cert.validTo})` });
      return cert;
    } catch {
      issues.push({ field, message: 'not a PEM X.509 certificate' });
      return null;
    }
  };
  const issuedBy = (cert: X509Certificate, cas: X509Certificate[]) => cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
  const chains = (rootsField: 'rootCerts' | 'tlsRootCerts', intermediatesField: 'intermediateCerts' | 'tlsIntermediateCerts', roots: string[], intermediates: string[]) => {
    const trusted = roots.map((p) => new X509Certificate(p));
    for (const [i, pem] of (update[rootsField] ?? []).entries()) {
      const cert = parsed(`${rootsField}[${i}]`, pem);
      if (!cert) continue;
      if (!cert.ca) issues.push({ field: `${rootsField}[${i}]`, message: 'not a CA certificate (basicConstraints CA)' });
      else if (!issuedBy(cert, [cert])) issues.push({ field: `${rootsField}[${i}]`, message: 'not self-signed: a root CA signs itself (add an issued CA as an intermediate)' });
      else trusted.push(cert);
    }
    // Intermediates in any order: each must chain to a root through those already accepted.
    const pending = (update[intermediatesField] ?? []).map((pem, i) => ({ i, cert: parsed(`${intermediatesField}[${i}]`, pem) })).filter((p): p is { i: number; cert: X509Certificate } => p.cert !== null);
    trusted.push(...intermediates.map((p) => new X509Certificate(p)));
    for (let progress = true; progress && pending.length; ) {
      progress = false;
      for (const p of [...pending]) {
        if (p.cert.ca && issuedBy(p.cert, trusted)) {
          trusted.push(p.cert);
          pending.splice(pending.indexOf(p), 1);
          progress = true;
        }
      }
    }
    for (const p of pending) issues.push({ field: `${intermediatesField}[${p.i}]`, message: p.cert.ca ? `issued by ${p.cert.issuer.replace(/\n/g, ', ')}, no CA of the MSP (add its root first)` : 'not a CA certificate (basicConstraints CA)' });
    return trusted;
  };
  const signing = chains('rootCerts', 'intermediateCerts', current.roots, current.intermediates);
  chains('tlsRootCerts', 'tlsIntermediateCerts', current.tlsRoots, current.tlsIntermediates);
  for (const [i, pem] of (update.admins ?? []).entries()) {
    const cert = parsed(`admins[${i}]`, pem);
    if (!cert) continue;
    if (cert.ca) issues.push({ field: `admins[${i}]`, message: 'a CA certificate: an admin is an identity' });
    else if (!issuedBy(cert, signing)) issues.push({ field: `admins[${i}]`, message: `issued by ${cert.issuer.replace(/\n/g, ', ')}, no signing CA of the MSP` });
  }
  return issues;
}

/** The MSP update of an organization of the channel, its certificates checked against the channel's current config, nothing signed. */
export async function planOrganizationMspUpdate(deps: AppDeps, target: { networkId: number; channelName: string }, mspId: string, update: MspUpdate): Promise<PlannedConfigChange> {
  const network = await channelNetworkOr404(deps, target.networkId, target.channelName);
  const given = Object.values(update).some((v) => v !== undefined);
  if (!given) throw new ValidationError('Give CA certificates to add (rootCerts, intermediateCerts, tlsRootCerts, tlsIntermediateCerts) or admins to set.', [{ field: 'rootCerts', message: 'nothing to change' }]);
  const orderer = await joinedOrderer(deps, network);
  const { config } = await consortiumOf(deps).channels.fetchConfigBlock({ kind: 'orderer', endpoint: orderer.endpoint }, orderer.signer, network.channelName);
  const current = currentCas(config, mspId);
  if (!current) throw new NotFoundError('Organization', `${mspId} of channel ${network.channelName}`);
  const issues = mspUpdateIssues(current, update, deps.clock());
  if (issues.length) throw new ValidationError(`The MSP update of ${mspId} is refused: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}. Nothing was submitted.`, issues, 'MSP_CERTIFICATE');
  const record = {
    kind: 'mspUpdate', mspId,
    added: { rootCerts: update.rootCerts?.length ?? 0, intermediateCerts: update.intermediateCerts?.length ?? 0, tlsRootCerts: update.tlsRootCerts?.length ?? 0, tlsIntermediateCerts: update.tlsIntermediateCerts?.length ?? 0 },
    ...(update.admins ? { admins: update.admins.map((p) => new X509Certificate(p).subject.replace(/\n/g, ', ')) } : {}),
  };
  return { network, changes: [{ kind: 'mspUpdate', mspId, update }], record };
}

export async function updateOrganizationMsp(input: CommandInput, target: { networkId: number; channelName: string }, mspId: string, update: MspUpdate, opts: { dryRun?: boolean } = {}) {
  return applyPlannedChange(input, await planOrganizationMspUpdate(input.deps, target, mspId, update), opts);
}
