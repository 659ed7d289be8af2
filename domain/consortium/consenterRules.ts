// The rules a change of a channel's consenter set (etcdraft or SmartBFT) is checked against
// before anything is submitted (one change per config update, as etcdraft applies them and as
// SmartBFT reconfigures):
//   consenter-quorum            after the change, the running consenters of the new set are a
//                               quorum of it: raft floor(n/2)+1; BFT Fabric's ComputeBFTQuorum,
//                               ceil((n+f+1)/2) with f = floor((n-1)/3) (Fabric 3.1 does not
//                               require n >= 4 after a change, only that blocks keep a quorum of
//                               signers). A certificate rotation counts the rotated consenter as
//                               down while it restarts; where the set cannot lose any consenter
//                               (quorum = n: raft n <= 2, BFT n <= 2) every one of them must run
//   consenter-rotation          raft: a certificate rotation needs another running consenter.
//                               Fabric 2.5's etcdraft leader, given a config update that rotates
//                               its own certificate (chain.go checkForEvictionNCertRotation),
//                               first hands leadership to a recently active follower
//                               (node.go abdicateLeadership); with none it retries 5 times
//                               (AbdicationMaxAttempts) and drops the update after Broadcast
//                               already answered SUCCESS: the channel never serves the new
//                               config. The sole consenter is always the leader, so it can never
//                               rotate; of a pair, the other must run. (The leader is not known
//                               here, so any rotated consenter counts as the leader.)
//   last-consenter              a channel keeps at least one consenter
//   consenter-certificate       an added (or replacing) TLS certificate is issued by a TLS CA of
//                               one of the channel's orderer organizations, and valid now (BFT:
//                               its identity certificate by its organization's CA)
//   consenter-exists / consenter-unknown    add an orderer once; remove or rotate one the set has
// assertConsenterChange(current, change, consensus = 'etcdraft') throws the 4xx naming the rule;
// channelConsenters(config) reads the consenters a channel config has.
import { ConflictError, ValidationError } from '../shared/errors.ts';
import { bftQuorum } from './consortiumDefaults.ts';
import type { ConsortiumConsensus } from './consortiumPorts.ts';
import type { ChannelConfigJson } from './consortiumChannelPorts.ts';

const b64Pem = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

export interface ConfigConsenter {
  host: string;
  port: number;
  serverTlsCertPem: string;
  /** BFT: its ConsenterMapping id and identity certificate. */
  bftId: number | null;
  identityCertPem: string | null;
}

type ConsensusJson = { type?: string; metadata?: { consenters?: Array<{ host: string; port: number; server_tls_cert: string }> } };
type OrderersJson = { consenter_mapping?: Array<{ id: number; host: string; port: number; server_tls_cert: string; identity: string }> };

/** The channel's consenters as its config (configtxlator's JSON) has them: etcdraft's metadata consenters or a BFT channel's ConsenterMapping; another consensus is a 400. */
export function channelConsenters(config: ChannelConfigJson): { consensus: ConsortiumConsensus; consenters: ConfigConsenter[] } {
  const group = config.channel_group.groups.Orderer;
  const consensus = group?.values.ConsensusType?.value as ConsensusJson | undefined;
  if (consensus?.type === 'etcdraft') {
    return { consensus: 'etcdraft', consenters: (consensus.metadata?.consenters ?? []).map((c) => ({ host: c.host, port: Number(c.port), serverTlsCertPem: b64Pem(c.server_tls_cert), bftId: null, identityCertPem: null })) };
  }
  if (consensus?.type === 'BFT') {
    const mapping = (group?.values.Orderers?.value as OrderersJson | undefined)?.consenter_mapping ?? [];
    return { consensus: 'smartbft', consenters: mapping.map((c) => ({ host: c.host, port: Number(c.port), serverTlsCertPem: b64Pem(c.server_tls_cert), bftId: Number(c.id), identityCertPem: b64Pem(c.identity) })) };
  }
  throw new ValidationError(`The channel's consensus is ${consensus?.type ?? 'unknown'}: consenter changes here are for etcdraft and BFT channels.`, [{ field: 'channelName', message: 'not an etcdraft or BFT channel' }]);
}


export interface ConsenterSlot {
  host: string;
  port: number;
  /** Its orderer runs (a consenter this service does not hold counts as running). */
  active: boolean;
}

export type ConsenterChange =
  | { kind: 'add'; host: string; port: number; active: boolean; certificateProblem: string | null }
  | { kind: 'remove'; host: string; port: number }
  | { kind: 'replaceCertificate'; host: string; port: number; certificateProblem: string | null };

/** A raft quorum: floor(n/2)+1. */
export const quorumOf = (consenters: number): number => Math.floor(consenters / 2) + 1;
/** The consenters that must run for the channel to order: raft's majority or BFT's quorum. */
export const consensusQuorum = (consenters: number, consensus: ConsortiumConsensus): number => (consensus === 'smartbft' ? bftQuorum(consenters) : quorumOf(consenters));

const same = (a: { host: string; port: number }, b: { host: string; port: number }) => a.host === b.host && a.port === b.port;
const name = (c: { host: string; port: number }) => `${c.host}:${c.port}`;

function quorumLost(after: number, active: number, what: string, consensus: ConsortiumConsensus): never {
  const quorum = consensusQuorum(after, consensus);
  const kind = consensus === 'smartbft' ? `the BFT quorum ceil((n+f+1)/2) of ${quorum} (n=${after}, f=${Math.floor((after - 1) / 3)})` : `the quorum of ${quorum}`;
  throw new ConflictError(
    `Rule consenter-quorum: ${what} would leave ${active} running consenter(s) of ${after}, below ${kind}; the channel could not order. Start the stopped orderers first. Nothing was submitted.`,
    { rule: 'consenter-quorum', consenters: after, running: active, quorum },
    'CONSENTER_QUORUM',
  );
}

export function assertConsenterChange(current: ConsenterSlot[], change: ConsenterChange, consensus: ConsortiumConsensus = 'etcdraft'): void {
  const q = (n: number) => consensusQuorum(n, consensus);
  const present = current.find((c) => same(c, change));
  if (change.kind === 'add') {
    if (present) throw new ConflictError(`Rule consenter-exists: ${name(change)} is already a consenter of the channel. Nothing was submitted.`, { rule: 'consenter-exists' }, 'CONSENTER_EXISTS');
  } else if (!present) {
    throw new ConflictError(`Rule consenter-unknown: ${name(change)} is not a consenter of the channel (its consenters: ${current.map(name).join(', ') || 'none'}). Nothing was submitted.`, { rule: 'consenter-unknown' }, 'CONSENTER_UNKNOWN');
  }
  if (change.kind !== 'remove' && change.certificateProblem) {
    throw new ValidationError(`Rule consenter-certificate: the channel cannot verify the TLS certificate of ${name(change)}: ${change.certificateProblem}. Nothing was submitted.`, [{ field: 'nodeId', message: `rule consenter-certificate: ${change.certificateProblem}` }], 'CONSENTER_CERTIFICATE');
  }
  const running = (slots: ConsenterSlot[]) => slots.filter((c) => c.active).length;
  switch (change.kind) {
    case 'add': {
      const after = [...current, { host: change.host, port: change.port, active: change.active }];
      if (running(after) < q(after.length)) quorumLost(after.length, running(after), `adding ${name(change)}${change.active ? '' : ' (not running)'}`, consensus);
      return;
    }
    case 'remove': {
      if (current.length === 1) {
        throw new ConflictError(`Rule last-consenter: ${name(change)} is the channel's last consenter; a channel without one cannot order. Add another consenter first. Nothing was submitted.`, { rule: 'last-consenter' }, 'LAST_CONSENTER');
      }
      const after = current.filter((c) => !same(c, change));
      if (running(after) < q(after.length)) quorumLost(after.length, running(after), `removing ${name(change)}`, consensus);
      return;
    }
    case 'replaceCertificate': {
      const others = running(current.filter((c) => !same(c, change)));
      if (consensus === 'etcdraft' && others === 0) {
        const what = current.length === 1
          ? `${name(change)} is the channel's only consenter`
          : `no other consenter of the ${current.length} runs (${current.filter((c) => !same(c, change)).map(name).join(', ')} stopped)`;
        const instead = current.length === 1
          ? 'Add a second consenter first (POST .../consenters with a running orderer, and wait for it to become a consenter), then replace the certificate (and remove the second one afterwards if it is not wanted).'
          : `Start ${current.length === 2 ? 'the other consenter' : 'the stopped consenters'} first, then replace the certificate.`;
        throw new ConflictError(
          `Rule consenter-rotation: ${what}. Fabric's raft leader hands leadership to another running consenter before it orders a rotation of its own certificate; with none it drops the update (after the orderer accepted it) and the channel never serves the new config. ${instead} Nothing was submitted.`,
          { rule: 'consenter-rotation', consenters: current.length, runningOthers: others },
          'CONSENTER_ROTATION',
        );
      }
      if (q(current.length) < current.length) {
        if (others < q(current.length)) quorumLost(current.length, others, `rotating the certificate of ${name(change)} (it restarts meanwhile)`, consensus);
      } else if (running(current) < current.length) {
        // A set that needs every consenter (raft or BFT n <= 2) orders nothing while one is stopped.
        quorumLost(current.length, running(current), `rotating the certificate of ${name(change)}`, consensus);
      }
      return;
    }
  }
}
