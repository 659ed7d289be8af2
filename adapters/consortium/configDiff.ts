// What a config change changes, for a person to read before it is submitted: the current and the
// desired config decoded as configtxlator does (channelConfigJson.ts) and compared leaf by leaf.
// Objects are walked by key; an array is compared as a set of elements (an element added has
// before null, one removed after null), so a consenter removed from the middle of the list is one
// entry, not a shifted list. Versions and the sequence are left out (Fabric sets them).
//   configDiff(before, after) -> ConfigDiffEntry[]   paths like channel_group.groups.Orderer.values.ConsensusType.value.metadata.consenters[]
import type { common } from '@hyperledger/fabric-protos';
import type { ConfigDiffEntry } from '../../domain/consortium/consortiumChannelPorts.ts';
import { configJson } from './channelConfigJson.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(path: string, before: unknown, after: unknown, out: ConfigDiffEntry[]): void {
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  if (isObject(before) && isObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      if (key === 'version') continue;
      walk(path ? `${path}.${key}` : key, before[key], after[key], out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const b = before.map((e) => JSON.stringify(e));
    const a = after.map((e) => JSON.stringify(e));
    for (const [i, e] of b.entries()) if (!a.includes(e)) out.push({ path: `${path}[]`, before: before[i], after: null });
    for (const [i, e] of a.entries()) if (!b.includes(e)) out.push({ path: `${path}[]`, before: null, after: after[i] });
    return;
  }
  out.push({ path, before: before ?? null, after: after ?? null });
}

export function configDiff(before: common.Config, after: common.Config): ConfigDiffEntry[] {
  const out: ConfigDiffEntry[] = [];
  walk('channel_group', configJson(before).channel_group, configJson(after).channel_group, out);
  return out;
}
