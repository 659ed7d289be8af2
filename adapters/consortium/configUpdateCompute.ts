// The ConfigUpdate that turns one channel config into another, computed as Fabric's
// internal/configtxlator/update.Compute does (so the orderer's validator reads it the same way):
// the read set pins the versions the update depends on, the write set carries every changed
// element with its version + 1 (new elements at version 0), and a group whose members changed is
// written whole with its mod_policy. Unchanged siblings of a changed group member appear in both
// sets at their current version.
//   computeConfigUpdate(channelId, original, updated) -> common.ConfigUpdate | null (no difference)
import { common } from '@hyperledger/fabric-protos';

type Entries<V> = Map<string, V>;

function entries<V>(map: { forEach(callback: (value: V, key: string) => void): void }): Entries<V> {
  const out = new Map<string, V>();
  map.forEach((value, key) => out.set(key, value));
  return out;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
const policyBytes = (p: common.ConfigPolicy) => p.getPolicy()?.serializeBinary() ?? new Uint8Array();

interface MapUpdate<V> {
  readSet: Entries<V>;
  writeSet: Entries<V>;
  sameSet: Entries<V>;
  membersUpdated: boolean;
}

function computePolicies(original: Entries<common.ConfigPolicy>, updated: Entries<common.ConfigPolicy>): MapUpdate<common.ConfigPolicy> {
  const result: MapUpdate<common.ConfigPolicy> = { readSet: new Map(), writeSet: new Map(), sameSet: new Map(), membersUpdated: false };
  for (const [name, originalPolicy] of original) {
    const updatedPolicy = updated.get(name);
    if (!updatedPolicy) {
      result.membersUpdated = true;
      continue;
    }
    if (originalPolicy.getModPolicy() === updatedPolicy.getModPolicy() && sameBytes(policyBytes(originalPolicy), policyBytes(updatedPolicy))) {
      const same = new common.ConfigPolicy();
      same.setVersion(originalPolicy.getVersion());
      result.sameSet.set(name, same);
      continue;
    }
    const write = new common.ConfigPolicy();
    write.setVersion(originalPolicy.getVersion() + 1);
    write.setModPolicy(updatedPolicy.getModPolicy());
    write.setPolicy(updatedPolicy.getPolicy());
    result.writeSet.set(name, write);
  }
  for (const [name, updatedPolicy] of updated) {
    if (original.has(name)) continue;
    result.membersUpdated = true;
    const write = new common.ConfigPolicy();
    write.setVersion(0);
    write.setModPolicy(updatedPolicy.getModPolicy());
    write.setPolicy(updatedPolicy.getPolicy());
    result.writeSet.set(name, write);
  }
  return result;
}

function computeValues(original: Entries<common.ConfigValue>, updated: Entries<common.ConfigValue>): MapUpdate<common.ConfigValue> {
  const result: MapUpdate<common.ConfigValue> = { readSet: new Map(), writeSet: new Map(), sameSet: new Map(), membersUpdated: false };
  for (const [name, originalValue] of original) {
    const updatedValue = updated.get(name);
    if (!updatedValue) {
      result.membersUpdated = true;
      continue;
    }
    if (originalValue.getModPolicy() === updatedValue.getModPolicy() && sameBytes(originalValue.getValue_asU8(), updatedValue.getValue_asU8())) {
      const same = new common.ConfigValue();
      same.setVersion(originalValue.getVersion());
      result.sameSet.set(name, same);
      continue;
    }
    const write = new common.ConfigValue();
    write.setVersion(originalValue.getVersion() + 1);
    write.setModPolicy(updatedValue.getModPolicy());
    write.setValue(updatedValue.getValue_asU8());
    result.writeSet.set(name, write);
  }
  for (const [name, updatedValue] of updated) {
    if (original.has(name)) continue;
    result.membersUpdated = true;
    const write = new common.ConfigValue();
    write.setVersion(0);
    write.setModPolicy(updatedValue.getModPolicy());
    write.setValue(updatedValue.getValue_asU8());
    result.writeSet.set(name, write);
  }
  return result;
}

function computeGroups(original: Entries<common.ConfigGroup>, updated: Entries<common.ConfigGroup>): MapUpdate<common.ConfigGroup> {
  const result: MapUpdate<common.ConfigGroup> = { readSet: new Map(), writeSet: new Map(), sameSet: new Map(), membersUpdated: false };
  for (const [name, originalGroup] of original) {
    const updatedGroup = updated.get(name);
    if (!updatedGroup) {
      result.membersUpdated = true;
      continue;
    }
    const { readSet, writeSet, updated: groupUpdated } = computeGroup(originalGroup, updatedGroup);
    if (!groupUpdated) {
      result.sameSet.set(name, readSet);
      continue;
    }
    result.readSet.set(name, readSet);
    result.writeSet.set(name, writeSet);
  }
  for (const [name, updatedGroup] of updated) {
    if (original.has(name)) continue;
    result.membersUpdated = true;
    const { writeSet } = computeGroup(new common.ConfigGroup(), updatedGroup);
    const write = group(0, updatedGroup.getModPolicy(), entries(writeSet.getPoliciesMap()), entries(writeSet.getValuesMap()), entries(writeSet.getGroupsMap()));
    result.writeSet.set(name, write);
  }
  return result;
}

function fill<V>(map: { set(key: string, value: V): unknown }, from: Entries<V>): void {
  for (const key of [...from.keys()].sort()) map.set(key, from.get(key)!);
}

function group(version: number, modPolicy: string, policies: Entries<common.ConfigPolicy>, values: Entries<common.ConfigValue>, groups: Entries<common.ConfigGroup>): common.ConfigGroup {
  const g = new common.ConfigGroup();
  g.setVersion(version);
  g.setModPolicy(modPolicy);
  fill(g.getPoliciesMap(), policies);
  fill(g.getValuesMap(), values);
  fill(g.getGroupsMap(), groups);
  return g;
}

function computeGroup(original: common.ConfigGroup, updated: common.ConfigGroup): { readSet: common.ConfigGroup; writeSet: common.ConfigGroup; updated: boolean } {
  const policies = computePolicies(entries(original.getPoliciesMap()), entries(updated.getPoliciesMap()));
  const values = computeValues(entries(original.getValuesMap()), entries(updated.getValuesMap()));
  const groups = computeGroups(entries(original.getGroupsMap()), entries(updated.getGroupsMap()));
  const version = original.getVersion();

  if (!(policies.membersUpdated || values.membersUpdated || groups.membersUpdated || original.getModPolicy() !== updated.getModPolicy())) {
    const nothingChanged = [policies, values, groups].every((u) => u.readSet.size === 0 && u.writeSet.size === 0);
    if (nothingChanged) {
      return { readSet: group(version, '', new Map(), new Map(), new Map()), writeSet: group(version, '', new Map(), new Map(), new Map()), updated: false };
    }
    return {
      readSet: group(version, '', policies.readSet, values.readSet, groups.readSet),
      writeSet: group(version, '', policies.writeSet, values.writeSet, groups.writeSet),
      updated: true,
    };
  }
  for (const u of [policies, values, groups] as MapUpdate<unknown>[]) {
    for (const [key, same] of u.sameSet) {
      u.readSet.set(key, same);
      u.writeSet.set(key, same);
    }
  }
  return {
    readSet: group(version, '', policies.readSet, values.readSet, groups.readSet),
    writeSet: group(version + 1, updated.getModPolicy(), policies.writeSet, values.writeSet, groups.writeSet),
    updated: true,
  };
}

export function computeConfigUpdate(channelId: string, original: common.Config, updated: common.Config): common.ConfigUpdate | null {
  const originalGroup = original.getChannelGroup();
  const updatedGroup = updated.getChannelGroup();
  if (!originalGroup || !updatedGroup) throw new Error('Both configs need a channel group to compute an update.');
  const { readSet, writeSet, updated: changed } = computeGroup(originalGroup, updatedGroup);
  if (!changed) return null;
  const update = new common.ConfigUpdate();
  update.setChannelId(channelId);
  update.setReadSet(readSet);
  update.setWriteSet(writeSet);
  return update;
}
