// Changes a channel's configuration: reads the current config from an orderer, applies the
// change, computes the ConfigUpdate, works out whose admin signatures its modification policies
// need, and either answers which organizations' signatures are missing (submitting nothing) or
// collects the signatures, submits the CONFIG_UPDATE envelope and waits until the orderer serves
// the new config (sequence grown).
//   updateChannelConfig({orderer, channelName, change, signers, check, timeoutMs}) -> ChannelConfigUpdateResult
//   (`check`: the use case's rules, run on the config read here before anything is computed: one read per update)
//   planConfigUpdate(current, channelName, change, signerMspIds) -> { update, diff, policies, unmet, signWith }
//   previewConfigUpdate({orderer, channelName, change, signers}) -> the plan's diff and missing signatures, nothing submitted
//   signedConfigUpdateEnvelope(channelName, update, signers)     -> common.Envelope
import { common, orderer } from '@hyperledger/fabric-protos';
import { FabricRefusedError, type ChannelBlockSource, type ChannelConfigChange, type ChannelConfigUpdateResult, type ConfigCheck, type ConfigDiffEntry, type ConfigUpdatePreview, type SignatureRequirement, type UnmetPolicy } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { Endpoint, FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import { UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import { fetchConfig } from './channelConfig.ts';
import { configJson } from './channelConfigJson.ts';
import { applyChange } from './configUpdateChanges.ts';
import { computeConfigUpdate } from './configUpdateCompute.ts';
import { configDiff } from './configDiff.ts';
import { requiredPolicies, signatureRequirement } from './configUpdateSignatures.ts';
import { broadcastToOrdering, type BftBroadcast } from './fabricGrpcBroadcast.ts';
import { nodeName } from './fabricGrpc.ts';
import { newTxContext, signatureHeader, signedEnvelope } from './fabricSigningEnvelope.ts';

export interface ConfigUpdatePlan {
  update: common.ConfigUpdate | null;
  /** What changes, current against desired config. */
  diff: ConfigDiffEntry[];
  /** Modification policies the update must satisfy. */
  policies: string[];
  unmet: UnmetPolicy[];
  /** MSP ids whose admins should sign (those the policies count). */
  signWith: string[];
  /** Whose signatures the policies count, which are held, which are missing. */
  requirement: SignatureRequirement;
}

export function planConfigUpdate(current: common.Config, channelName: string, change: ChannelConfigChange | ChannelConfigChange[], signerMspIds: string[]): ConfigUpdatePlan {
  const desired = applyChange(current, change);
  const update = computeConfigUpdate(channelName, current, desired);
  if (!update) return { update: null, diff: [], policies: [], unmet: [], signWith: [], requirement: { policies: [], requiredOrganizations: [], heldOrganizations: [], missingOrganizations: [], unmet: [] } };
  const diff = configDiff(current, desired);
  const requirement = signatureRequirement(current, requiredPolicies(current, update), signerMspIds);
  return { update, diff, policies: requirement.policies, unmet: requirement.unmet, signWith: signerMspIds.filter((id) => requirement.requiredOrganizations.includes(id)), requirement };
}

export async function signedConfigUpdateEnvelope(channelName: string, update: common.ConfigUpdate, signers: FabricSigner[]): Promise<common.Envelope> {
  if (signers.length === 0) throw new ValidationError(`A config update of channel "${channelName}" needs at least one signer.`, [{ field: 'signers', message: 'none' }]);
  const updateBytes = update.serializeBinary();
  const updateEnvelope = new common.ConfigUpdateEnvelope();
  updateEnvelope.setConfigUpdate(updateBytes);
  for (const signer of signers) {
    const header = signatureHeader(newTxContext(signer)).serializeBinary();
    const signature = new common.ConfigSignature();
    signature.setSignatureHeader(header);
    signature.setSignature(await signer.sign(Buffer.concat([header, updateBytes])));
    updateEnvelope.addSignatures(signature);
  }
  return signedEnvelope(signers[0], common.HeaderType.CONFIG_UPDATE, channelName, updateEnvelope.serializeBinary());
}

/** The use case's rules run against the config just read (the update's one read of it). */
export async function checkAgainst(config: common.Config, check: ConfigCheck | undefined): Promise<void> {
  if (check) await check(configJson(config));
}

// The signers may include an organization the channel does not know yet (one being added): read
// the config as the first signer the orderer lets read it.
async function fetchAsAnyReader(source: ChannelBlockSource, signers: FabricSigner[], channelName: string) {
  let refusal: unknown;
  for (const reader of signers) {
    try {
      return { reader, ...(await fetchConfig(source, reader, channelName)) };
    } catch (err) {
      if (!(err instanceof FabricRefusedError && err.fabricStatus === 'FORBIDDEN')) throw err;
      refusal = err;
    }
  }
  throw refusal;
}

export async function previewConfigUpdate(request: { orderer: Endpoint; channelName: string; change: ChannelConfigChange | ChannelConfigChange[]; signers: FabricSigner[]; check?: ConfigCheck }): Promise<ConfigUpdatePreview> {
  const { orderer, channelName, change, signers } = request;
  if (signers.length === 0) throw new ValidationError(`A config update of channel "${channelName}" needs at least one admin signer.`, [{ field: 'signers', message: 'none' }]);
  const { reader: _reader, ...current } = await fetchAsAnyReader({ kind: 'orderer', endpoint: orderer }, signers, channelName);
  await checkAgainst(current.config, request.check);
  const plan = planConfigUpdate(current.config, channelName, change, [...new Set(signers.map((s) => s.mspId))]);
  return {
    sequence: current.config.getSequence(), unchanged: !plan.update, diff: plan.diff, ...plan.requirement,
  };
}

/** `consenters` (the running consenters of a BFT channel) with the channel's consenter count from `config`; undefined on any other channel. */
export function bftBroadcastOf(config: common.Config, consenters: Endpoint[] | undefined): BftBroadcast | undefined {
  if (!consenters?.length) return undefined;
  const group = config.getChannelGroup()?.getGroupsMap().get('Orderer');
  const type = group?.getValuesMap().get('ConsensusType');
  if (!type || orderer.ConsensusType.deserializeBinary(type.getValue_asU8()).getType() !== 'BFT') return undefined;
  const mapping = group!.getValuesMap().get('Orderers');
  const clusterSize = mapping ? common.Orderers.deserializeBinary(mapping.getValue_asU8()).getConsenterMappingList().length : consenters.length;
  return { consenters, clusterSize };
}

export async function updateChannelConfig(request: {
  orderer: Endpoint;
  /** BFT: every running consenter, each sent the update (fabricGrpcBroadcast.ts broadcastToOrdering). */
  consenters?: Endpoint[];
  channelName: string;
  change: ChannelConfigChange | ChannelConfigChange[];
  signers: FabricSigner[];
  check?: ConfigCheck;
  timeoutMs?: number;
}): Promise<ChannelConfigUpdateResult> {
  const { orderer, channelName, change, signers } = request;
  const timeoutMs = request.timeoutMs ?? 60_000;
  if (signers.length === 0) throw new ValidationError(`A config update of channel "${channelName}" needs at least one admin signer.`, [{ field: 'signers', message: 'none' }]);
  const source = { kind: 'orderer' as const, endpoint: orderer };
  const { reader, ...current } = await fetchAsAnyReader(source, signers, channelName);
  await checkAgainst(current.config, request.check);
  const sequence = current.config.getSequence();
  const plan = planConfigUpdate(current.config, channelName, change, [...new Set(signers.map((s) => s.mspId))]);
  if (!plan.update) return { status: 'unchanged', sequence };
  if (plan.unmet.length) {
    return { status: 'signatures-missing', ...plan.requirement };
  }
  const chosen = plan.signWith.length ? signers.filter((s) => plan.signWith.includes(s.mspId)) : signers.slice(0, 1);
  // One signature per organization: a second admin of the same MSP adds nothing to any policy here.
  const oneEach = chosen.filter((s, i) => chosen.findIndex((o) => o.mspId === s.mspId) === i);
  await broadcastToOrdering(orderer, channelName, await signedConfigUpdateEnvelope(channelName, plan.update, oneEach), bftBroadcastOf(current.config, request.consenters));

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await fetchConfig(source, reader, channelName);
    if (now.config.getSequence() > sequence) {
      return { status: 'updated', sequence: now.config.getSequence(), blockNumber: now.blockNumber, signedBy: oneEach.map((s) => s.mspId), diff: plan.diff };
    }
    if (Date.now() > deadline) {
      throw new UnavailableError(`Orderer ${nodeName(orderer)} accepted the config update of channel "${channelName}" but served no new config within ${timeoutMs} ms (sequence still ${sequence}).`, {
        node: nodeName(orderer),
        channelName,
      });
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
