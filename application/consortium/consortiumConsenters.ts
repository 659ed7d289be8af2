// A consortium channel's consenter set, etcdraft or SmartBFT: listed (from the channel config,
// each consenter matched to this service's orderer by its endpoint), an orderer added as consenter
// (a follower that already pulled the chain is promoted), one removed, one's TLS certificate (and,
// on a BFT channel, its identity certificate) replaced by the certificates its keys now have
// (after a renewal). One change per config update; the rules of domain/consortium/consenterRules.ts
// are checked first (nothing is submitted when one fails), with the BFT quorum on a BFT channel.
// A BFT change also carries the channel's new BlockValidation policy (configUpdateChanges.ts).
// `dryRun` computes the update and answers its diff without submitting. A submitted change is
// recorded with RecordConfigUpdate (audited as NETWORK_UPDATE). A BFT consenter removed is then
// rejoined as a follower (removeConsenter below).
import { X509Certificate } from 'node:crypto';
import type { CommandInput } from '../commands.ts';
import type { AppDeps } from '../deps.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { assertConsenterChange, channelConsenters, type ConfigConsenter, type ConsenterSlot } from '../../domain/consortium/consenterRules.ts';
import type { ChannelConfigJson, ConfigDiffEntry, SignatureRequirement } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { ConsortiumConsensus, RaftConsenter } from '../../domain/consortium/consortiumPorts.ts';
import { SMARTBFT_MIN_RELEASE } from '../../domain/consortium/consortiumDefaults.ts';
import { consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { listNodes, type NodeRow } from '../../projections/nodes.ts';
import { consortiumOf } from './consortiumContext.ts';
import { adminEndpoint, channelNetworkOr404, consortiumNodeOr404, orderingOrderer } from './consortiumChannelAccess.ts';
import { applyPlannedChange, type PlannedConfigChange } from './consortiumConfigChange.ts';
import { releaseAtLeast } from '../../domain/consortium/capabilityRules.ts';
import { identityCertificateOf, splitEndpoint, tlsCertificateOf } from './consortiumNetworkCreate.ts';
import { rejoinAsFollower, type OrdererRejoin } from './consortiumOrdererJoin.ts';

export interface ChannelTarget {
  networkId: number;
  channelName: string;
}

export interface ConsenterView {
  host: string;
  port: number;
  /** A BFT channel: its ConsenterMapping id (null on etcdraft). */
  bftId: number | null;
  nodeId: number | null;
  nodeName: string | null;
  nodeStatus: string | null;
  /** What the orderer's channel participation API says (consenter, follower, ...); null when not asked or not answering. */
  consensusRelation: string | null;
  /** The channel holds the TLS (BFT: and identity) certificate the node has now (false after a renewal not yet replaced); null for a node this service does not hold. */
  certificateCurrent: boolean | null;
}

export interface ConsenterChangeResult {
  network: ConsortiumNetworkRow;
  status: 'updated' | 'unchanged' | 'dry_run';
  sequence: number;
  blockNumber: number | null;
  signedBy: string[];
  diff: ConfigDiffEntry[];
  /** Dry run: organizations whose admin signatures the update would still need. */
  missingOrganizations: string[];
  /** Dry run: whose signatures the update needs, which are held, which are missing. */
  requirement: SignatureRequirement | null;
  /** A BFT consenter removed: the orderer's channel removed and joined again as a follower (null: not done). */
  rejoined: OrdererRejoin | null;
}

const b64Pem = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
const pemKey = (pem: string) => pem.replace(/\s+/g, '');

/**
 * Why the channel cannot verify `certPem` (null: valid now and issued by a CA the channel holds):
 * a TLS certificate by a TLS CA of one of its orderer organizations; an identity certificate
 * (`identityOf`: a BFT consenter's) by a root or intermediate CA of that organization's MSP.
 */
export function certificateProblem(certPem: string, config: ChannelConfigJson, now: Date, identityOf?: string): string | null {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    return 'it is not an X.509 certificate';
  }
  if (new Date(cert.validTo) < now || new Date(cert.validFrom) > now) return `it is not valid now (valid from ${cert.validFrom} to ${cert.validTo})`;
  const all = config.channel_group.groups.Orderer?.groups ?? {};
  const orgs = identityOf ? Object.fromEntries(Object.entries(all).filter(([mspId]) => mspId === identityOf)) : all;
  for (const org of Object.values(orgs)) {
    const msp = (org.values.MSP?.value as { config?: Record<'root_certs' | 'intermediate_certs' | 'tls_root_certs' | 'tls_intermediate_certs', string[] | undefined> } | undefined)?.config;
    const cas = identityOf ? [...(msp?.root_certs ?? []), ...(msp?.intermediate_certs ?? [])] : [...(msp?.tls_root_certs ?? []), ...(msp?.tls_intermediate_certs ?? [])];
    for (const ca of cas) {
      try {
        const issuer = new X509Certificate(b64Pem(ca));
        if (cert.checkIssued(issuer) && cert.verify(issuer.publicKey)) return null;
      } catch {
        continue;
      }
    }
  }
  if (identityOf) return `its issuer (${cert.issuer.replace(/\n/g, ', ')}) is no CA of ${identityOf} in the channel`;
  return `its issuer (${cert.issuer.replace(/\n/g, ', ')}) is no TLS CA of the channel's orderer organizations (${Object.keys(all).join(', ') || 'none'})`;
}

interface ConsenterContext {
  network: ConsortiumNetworkRow;
  config: ChannelConfigJson;
  consensus: ConsortiumConsensus;
  consenters: ConfigConsenter[];
  /** The network's orderer nodes (members) by their endpoint host:port. */
  orderers: Map<string, NodeRow>;
}

async function consenterContext(deps: AppDeps, target: ChannelTarget): Promise<ConsenterContext> {
  const network = await channelNetworkOr404(deps, target.networkId, target.channelName);
  const orderer = await orderingOrderer(deps, network);
  const fetched = await consortiumOf(deps).channels.fetchConfigBlock({ kind: 'orderer', endpoint: orderer.endpoint }, orderer.signer, network.channelName);
  const members = (await consortiumNetworkMembers(deps.pool, network.id)).filter((m) => m.role === 'orderer');
  const rows = members.length ? (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items : [];
  const orderers = new Map(rows.filter((n) => n.consortiumConfig).map((n) => [n.consortiumConfig!.externalEndpoint, n]));
  return { network, config: fetched.config, ...channelConsenters(fetched.config), orderers };
}

const slots = (ctx: ConsenterContext): ConsenterSlot[] => ctx.consenters.map((c) => ({ host: c.host, port: c.port, active: (ctx.orderers.get(`${c.host}:${c.port}`)?.status ?? 'running') === 'running' }));

export async function listConsenters(deps: AppDeps, target: ChannelTarget): Promise<{ network: ConsortiumNetworkRow; sequence: number; consenters: ConsenterView[] }> {
  const ctx = await consenterContext(deps, target);
  const consenters: ConsenterView[] = [];
  for (const c of ctx.consenters) {
    const node = ctx.orderers.get(`${c.host}:${c.port}`) ?? null;
    let relation: string | null = null;
    let current: boolean | null = null;
    if (node) {
      current = pemKey(await tlsCertificateOf({ deps }, node)) === pemKey(c.serverTlsCertPem) && (c.identityCertPem === null || pemKey(await identityCertificateOf({ deps }, node)) === pemKey(c.identityCertPem));
      if (node.status === 'running') {
        const info = await consortiumOf(deps).channels.ordererChannel(await adminEndpoint(deps, node), await consortiumOf(deps).credentials.adminTlsClient(node.organizationId!), ctx.network.channelName).catch(() => null);
        relation = info?.consensusRelation ?? null;
      }
    }
    consenters.push({ host: c.host, port: c.port, bftId: c.bftId, nodeId: node?.id ?? null, nodeName: node?.name ?? null, nodeStatus: node?.status ?? null, consensusRelation: relation, certificateCurrent: current });
  }
  return { network: ctx.network, sequence: Number(ctx.config.sequence), consenters };
}

/**
 * The orderer `nodeId` as a member of the network: its endpoint, organization, current TLS
 * certificate and, on a BFT channel, its identity certificate (what its ConsenterMapping entry and
 * the BlockValidation policy carry), with why the channel could not verify them (null: it can).
 */
async function memberOrderer(input: CommandInput, ctx: ConsenterContext, nodeId: number) {
  const node = await consortiumNodeOr404(input.deps, nodeId, 'orderer');
  const endpoint = node.consortiumConfig!.externalEndpoint;
  if (ctx.orderers.get(endpoint)?.id !== node.id) {
    throw new ValidationError(`Orderer ${node.name} is not a member of network ${ctx.network.name}: add it to the network ("Add a node to this network") or join it to channel ${ctx.network.channelName} first.`, [{ field: 'nodeId', message: 'not an orderer of this network' }]);
  }
  const org = ctx.network.ordererOrganizations.find((o) => o.organizationId === node.organizationId);
  const certPem = await tlsCertificateOf(input, node);
  const identityCertPem = ctx.consensus === 'smartbft' ? await identityCertificateOf(input, node) : undefined;
  const now = input.deps.clock();
  const identityProblem = identityCertPem && org ? certificateProblem(identityCertPem, ctx.config, now, org.mspId) : null;
  const problem = certificateProblem(certPem, ctx.config, now) ?? (identityProblem ? `its identity certificate: ${identityProblem}` : null);
  return { node, ...splitEndpoint(endpoint), mspId: org?.mspId, certPem, identityCertPem, problem };
}

async function applyConsenterChange(input: CommandInput, planned: PlannedConfigChange, dryRun: boolean): Promise<ConsenterChangeResult> {
  const r = await applyPlannedChange(input, planned, { dryRun });
  return { ...r, status: r.dryRun ? 'dry_run' : r.status, missingOrganizations: r.requirement?.missingOrganizations ?? [], rejoined: null };
}

export type ConsenterAction = 'add' | 'remove' | 'certificate';

/** A consenter change of the channel, its rules checked, nothing signed: add the orderer as consenter, remove it, or put its current TLS certificate in place of the one the channel holds. */
export async function planConsenterChange(input: CommandInput, target: ChannelTarget, action: ConsenterAction, nodeId: number): Promise<PlannedConfigChange> {
  const ctx = await consenterContext(input.deps, target);
  if (action === 'remove') {
    const node = await consortiumNodeOr404(input.deps, nodeId, 'orderer');
    const { host, port } = splitEndpoint(node.consortiumConfig!.externalEndpoint);
    if (!ctx.consenters.some((c) => c.host === host && c.port === port)) throw new NotFoundError('Consenter', `${node.name} (${host}:${port}) of channel ${ctx.network.channelName}`);
    assertConsenterChange(slots(ctx), { kind: 'remove', host, port }, ctx.consensus);
    const mspId = ctx.network.ordererOrganizations.find((o) => o.organizationId === node.organizationId)?.mspId;
    return { network: ctx.network, changes: [{ kind: 'removeConsenter', host, port, mspId }], record: { kind: 'removeConsenter', nodeId: node.id, host, port }, avoidOrdererId: node.id };
  }
  const o = await memberOrderer(input, ctx, nodeId);
  const consenter: RaftConsenter = { host: o.host, port: o.port, clientTlsCertPem: o.certPem, serverTlsCertPem: o.certPem };
  if (action === 'add') {
    if (!o.mspId) throw new ValidationError(`Orderer ${o.node.name} belongs to no orderer organization of channel ${ctx.network.channelName}.`, [{ field: 'nodeId', message: 'rule consenter-certificate: its organization is not an orderer organization of the channel' }], 'CONSENTER_CERTIFICATE');
    const version = o.node.consortiumConfig?.fabricVersion;
    if (ctx.consensus === 'smartbft' && !(version && releaseAtLeast(version, SMARTBFT_MIN_RELEASE))) {
      throw new ValidationError(`Orderer ${o.node.name} runs Fabric ${version ?? '(no recorded release)'}; a BFT consenter needs Fabric ${SMARTBFT_MIN_RELEASE} or newer. Nothing was submitted.`, [{ field: 'nodeId', message: `Fabric ${version ?? 'unknown'}: BFT needs ${SMARTBFT_MIN_RELEASE} or newer` }]);
    }
    assertConsenterChange(slots(ctx), { kind: 'add', host: o.host, port: o.port, active: o.node.status === 'running', certificateProblem: o.problem }, ctx.consensus);
    return { network: ctx.network, changes: [{ kind: 'addConsenter', consenter, mspId: o.mspId, identityCertPem: o.identityCertPem }], record: { kind: 'addConsenter', nodeId: o.node.id, host: o.host, port: o.port, mspId: o.mspId } };
  }
  // BFT: submitted through another consenter (the others refuse the renewed orderer until this
  // update reaches them, so it cannot forward it).
  assertConsenterChange(slots(ctx), { kind: 'replaceCertificate', host: o.host, port: o.port, certificateProblem: o.problem }, ctx.consensus);
  const serial = new X509Certificate(o.certPem).serialNumber;
  return { network: ctx.network, changes: [{ kind: 'replaceConsenterCertificate', consenter, identityCertPem: o.identityCertPem }], record: { kind: 'replaceConsenterCertificate', nodeId: o.node.id, host: o.host, port: o.port, serialNumber: serial }, avoidOrdererId: ctx.consensus === 'smartbft' ? o.node.id : undefined };
}

/**
 * Adds the orderer as a consenter of the channel (a follower that pulled the chain becomes a
 * consenter once the config block reaches it). BFT: it gets the next unique SmartBFT id, and its
 * orderer must run a Fabric release with SmartBFT.
 */
export async function addConsenter(input: CommandInput, target: ChannelTarget, nodeId: number, opts: { dryRun?: boolean } = {}): Promise<ConsenterChangeResult> {
  return applyConsenterChange(input, await planConsenterChange(input, target, 'add', nodeId), !!opts.dryRun);
}

/**
 * Removes the orderer from the channel's consenters (and its endpoint from its organization's
 * orderer endpoints). etcdraft: it turns follower by itself. BFT: Fabric 3.1.5 leaves it halted, a
 * consenter of the config before its removal, so a running one is then rejoined as a follower
 * (consortiumOrdererJoin.ts rejoinAsFollower: its channel removed, joined again with the newest
 * config block); `rejoin: false` (an orderer leaving the channel) skips that.
 */
export async function removeConsenter(input: CommandInput, target: ChannelTarget, nodeId: number, opts: { dryRun?: boolean; rejoin?: boolean } = {}): Promise<ConsenterChangeResult> {
  const r = await applyConsenterChange(input, await planConsenterChange(input, target, 'remove', nodeId), !!opts.dryRun);
  if (r.status !== 'updated' || opts.rejoin === false) return r;
  return { ...r, rejoined: await rejoinRemovedConsenter(input, r.network, nodeId) };
}

/**
 * After a submitted removal of a consenter (the direct route or a signing proposal's submit): on a
 * smartbft channel a running orderer is rejoined as a follower (rejoinAsFollower); null otherwise
 * (etcdraft turns it follower by itself; an orderer not running is joined again when started).
 */
export async function rejoinRemovedConsenter(input: CommandInput, network: ConsortiumNetworkRow, nodeId: number): Promise<OrdererRejoin | null> {
  if (network.consensus !== 'smartbft') return null;
  const node = await consortiumNodeOr404(input.deps, nodeId, 'orderer');
  if (node.status !== 'running') return null;
  return rejoinAsFollower(input, network, node);
}

/** A removed consenter's rejoin as the API says it (the direct removal's and a proposal's submit answer, the proposal's GET and the list). */
export function rejoinedView(j: Pick<OrdererRejoin, 'steps' | 'status' | 'consensusRelation' | 'height'> | null | undefined) {
  return j ? { steps: j.steps, status: j.status, consensus_relation: j.consensusRelation, height: j.height } : null;
}

/**
 * Puts the orderer's current TLS certificate (after a renewal; BFT: and its identity certificate)
 * in place of the one the channel holds for it. BFT: submitted through another consenter (the
 * others refuse the renewed orderer until this update reaches them, so it cannot forward it).
 */
export async function replaceConsenterCertificate(input: CommandInput, target: ChannelTarget, nodeId: number, opts: { dryRun?: boolean } = {}): Promise<ConsenterChangeResult> {
  return applyConsenterChange(input, await planConsenterChange(input, target, 'certificate', nodeId), !!opts.dryRun);
}
