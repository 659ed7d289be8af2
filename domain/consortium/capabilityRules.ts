// The capabilities of a Fabric channel at its three levels (/Channel, /Channel/Orderer,
// /Channel/Application) and the rules a change of them is checked against before anything is
// submitted. The names and their order are Fabric's (common/capabilities/{channel,orderer,
// application}.go of Fabric 3.1.5):
//   channel      V1_1 < V1_3 < V1_4_2 < V1_4_3 < V2_0 < V3_0
//   orderer      V1_1 < V1_4_2 < V2_0
//   application  V1_1 < V1_2 < V1_3 < V1_4_2 < V2_0 < V2_5
// Rules:
//   capability-lowering   a level is never lowered (Fabric has no way back: a node of the older
//                         release would then process blocks it cannot validate): 400
//   capability-v3-nodes   channel V3_0 only once every node of the channel (this service's peers and
//                         orderers joined to it) runs a Fabric 3.x release, known from the release
//                         each records; the 409 lists each one that does not
//   assertCapabilityLevels(current, asked)       throws the 400 of capability-lowering
//   assertV3Nodes(channelName, nodes)            throws the 409 of capability-v3-nodes
//   capabilityLevelOf(level, names)              the highest known capability of a level's set
import { ConflictError, ValidationError } from '../shared/errors.ts';

export const CAPABILITY_ORDER = {
  channel: ['V1_1', 'V1_3', 'V1_4_2', 'V1_4_3', 'V2_0', 'V3_0'],
  orderer: ['V1_1', 'V1_4_2', 'V2_0'],
  application: ['V1_1', 'V1_2', 'V1_3', 'V1_4_2', 'V2_0', 'V2_5'],
} as const;

export type CapabilityLevel = keyof typeof CAPABILITY_ORDER;
export const CAPABILITY_LEVELS = Object.keys(CAPABILITY_ORDER) as CapabilityLevel[];

/** The capability asked per level; a level not given is kept. */
export type ChannelCapabilities = Partial<Record<CapabilityLevel, string>>;

/** The capability that needs every node of the channel on Fabric 3.x, and the release line it needs. */
export const V3_CAPABILITY = 'V3_0';
export const V3_MIN_RELEASE = '3.0';

const rank = (level: CapabilityLevel, name: string) => (CAPABILITY_ORDER[level] as readonly string[]).indexOf(name);

/** The highest capability of the set Fabric knows at that level (null: none, or none known). */
export function capabilityLevelOf(level: CapabilityLevel, names: string[]): string | null {
  let best: string | null = null;
  for (const n of names) if (rank(level, n) >= 0 && (best === null || rank(level, n) > rank(level, best))) best = n;
  return best;
}

/** Whether a dotted release (3.1.5) is at least a release line (3.0). */
export function releaseAtLeast(version: string, line: string): boolean {
  const [a, b] = [version, line].map((v) => v.split('.').map((p) => Number.parseInt(p, 10) || 0));
  return a[0] !== b[0] ? a[0] > b[0] : (a[1] ?? 0) >= (b[1] ?? 0);
}

/** Refuses (400, rule capability-lowering) a level asked below what the channel has. */
export function assertCapabilityLevels(current: Record<CapabilityLevel, string[]>, asked: ChannelCapabilities): void {
  const lowered = CAPABILITY_LEVELS.flatMap((level) => {
    const want = asked[level];
    const now = capabilityLevelOf(level, current[level] ?? []);
    if (want === undefined || now === null || rank(level, want) >= rank(level, now)) return [];
    return [{ level, now, want }];
  });
  if (lowered.length) {
    throw new ValidationError(
      `Rule capability-lowering: a channel's capabilities are never lowered (${lowered.map((l) => `${l.level} is ${l.now}, ${l.want} asked`).join('; ')}). Nothing was submitted.`,
      lowered.map((l) => ({ field: `capabilities.${l.level}`, message: `below the channel's ${l.now}` })),
      'CAPABILITY_LOWERING',
    );
  }
}

export interface ChannelNodeRelease {
  nodeId: number;
  name: string;
  role: 'peer' | 'orderer';
  /** The Fabric release the node records (null: none recorded, e.g. a docker node). */
  fabricVersion: string | null;
}

/** The nodes that do not run Fabric 3.x (a node recording no release counts: nothing says it does). */
export function nodesBelowV3(nodes: ChannelNodeRelease[]): ChannelNodeRelease[] {
  return nodes.filter((n) => !n.fabricVersion || !releaseAtLeast(n.fabricVersion, V3_MIN_RELEASE));
}

/** Refuses (409, rule capability-v3-nodes) channel V3_0 while a node of the channel runs an older release. */
export function assertV3Nodes(channelName: string, nodes: ChannelNodeRelease[]): void {
  const below = nodesBelowV3(nodes);
  if (!below.length) return;
  const named = below.map((n) => `${n.role} ${n.name} (${n.fabricVersion ? `Fabric ${n.fabricVersion}` : 'no recorded Fabric release'})`);
  throw new ConflictError(
    `Rule capability-v3-nodes: channel capability ${V3_CAPABILITY} needs every node of channel ${channelName} on Fabric ${V3_MIN_RELEASE} or newer; ${below.length} do not: ${named.join(', ')}. Upgrade them to a 3.x release first (the node upgrade, one node at a time). Nothing was submitted.`,
    { rule: 'capability-v3-nodes', nodes: below.map((n) => ({ node_id: n.nodeId, name: n.name, role: n.role, fabric_version: n.fabricVersion })) },
    'CAPABILITY_NODES_BELOW_V3',
  );
}
