// A config update whose signatures are collected from several places (node sharing: another
// instance's admin signs it there): prepared once (the ConfigUpdate bytes every signer signs),
// signed anywhere (a ConfigSignature: signature header with the signer's identity and nonce,
// and the signature over header || update), submitted with all signatures gathered.
//   prepareConfigUpdate({orderer, channelName, change, signers, check}) -> prepared bytes and whose signatures are missing
//   signConfigUpdate(updateBytes, signer)                       -> { signatureHeader, signature }
//   describeConfigUpdate(updateBytes)                           -> { channelName }
//   submitConfigUpdate({orderer, channelName, updateBytes, signatures, submitter, timeoutMs})
//   evaluateConfigUpdate({orderer, channelName, updateBytes, signedBy, reader}) -> the channel's current sequence and the policy evaluated with those signatures
//   verifyDetachedSignature({orderer, channelName, updateBytes, signature, reader}) -> the signature with its verified MSP id (400 naming why not)
//   signerOfConfigSignature(signatureHeader)                    -> the signer's certificate subject (display only; verified on upload)
//   configUpdateFile(channelName, updateBytes, signatures) / signaturesOfConfigUpdateFile(file, updateBytes): the peer channel signconfigtx file
import { X509Certificate } from 'node:crypto';
import { common, msp } from '@hyperledger/fabric-protos';
import type { Endpoint, FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import type { PreparedConfigUpdate, DetachedConfigSignature, SignatureRequirement } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { ChannelConfigChange, ConfigCheck } from '../../domain/consortium/consortiumChannelPorts.ts';
import { UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import { fetchConfig } from './channelConfig.ts';
import { bftBroadcastOf, checkAgainst, planConfigUpdate } from './configUpdate.ts';
import { requiredPolicies, signatureRequirement } from './configUpdateSignatures.ts';
import { configUpdateTxEnvelope, signaturesOfSignedConfigTx, verifyConfigSignature } from './configSignatureVerify.ts';
import { broadcastToOrdering } from './fabricGrpcBroadcast.ts';
import { newTxContext, signatureHeader, signedEnvelope } from './fabricSigningEnvelope.ts';

export async function prepareConfigUpdate(request: { orderer: Endpoint; channelName: string; change: ChannelConfigChange | ChannelConfigChange[]; signers: FabricSigner[]; check?: ConfigCheck }): Promise<PreparedConfigUpdate> {
  const { orderer, channelName, change, signers } = request;
  if (!signers.length) throw new ValidationError(`A config update of channel "${channelName}" needs at least one admin signer here.`, [{ field: 'signers', message: 'none' }]);
  const current = await fetchConfig({ kind: 'orderer', endpoint: orderer }, signers[0], channelName);
  await checkAgainst(current.config, request.check);
  const sequence = current.config.getSequence();
  const plan = planConfigUpdate(current.config, channelName, change, [...new Set(signers.map((s) => s.mspId))]);
  if (!plan.update) return { status: 'unchanged', sequence };
  return {
    status: 'prepared', sequence, updateBytes: plan.update.serializeBinary(), ...plan.requirement, diff: plan.diff,
    signWith: plan.signWith.length ? plan.signWith : [signers[0].mspId],
  };
}

export async function signConfigUpdate(updateBytes: Uint8Array, signer: FabricSigner): Promise<DetachedConfigSignature> {
  const header = signatureHeader(newTxContext(signer)).serializeBinary();
  const signature = await signer.sign(Buffer.concat([header, updateBytes]));
  return { mspId: signer.mspId, signatureHeader: Buffer.from(header).toString('base64'), signature: Buffer.from(signature).toString('base64') };
}

/** The channel and the paths the update writes (a group, policy or value whose version moves), for the signer to see. */
export function describeConfigUpdate(updateBytes: Uint8Array): { channelName: string; changes: string[] } {
  let update: common.ConfigUpdate;
  try {
    update = common.ConfigUpdate.deserializeBinary(updateBytes);
  } catch {
    throw new ValidationError('Not a channel config update.', [{ field: 'update', message: 'not a ConfigUpdate' }]);
  }
  const changes: string[] = [];
  const walk = (write: common.ConfigGroup | undefined, read: common.ConfigGroup | undefined, path: string) => {
    if (!write) return;
    if (write.getVersion() !== (read?.getVersion() ?? -1)) changes.push(path);
    for (const [kind, w, r] of [['policies', write.getPoliciesMap(), read?.getPoliciesMap()], ['values', write.getValuesMap(), read?.getValuesMap()]] as const) {
      w.forEach((item: { getVersion(): number }, key: string) => {
        const before = r?.get(key) as { getVersion(): number } | undefined;
        if (item.getVersion() !== (before?.getVersion() ?? -1)) changes.push(`${path}/${kind}/${key}`);
      });
    }
    write.getGroupsMap().forEach((g: common.ConfigGroup, key: string) => walk(g, read?.getGroupsMap().get(key), `${path}/${key}`));
  };
  walk(update.getWriteSet(), update.getReadSet(), '/Channel');
  return { channelName: update.getChannelId(), changes };
}

export async function submitConfigUpdate(request: { orderer: Endpoint; consenters?: Endpoint[]; channelName: string; updateBytes: Uint8Array; signatures: DetachedConfigSignature[]; submitter: FabricSigner; timeoutMs?: number }): Promise<{ sequence: number; blockNumber: number }> {
  const { orderer, channelName, updateBytes, signatures, submitter } = request;
  const source = { kind: 'orderer' as const, endpoint: orderer };
  const current = (await fetchConfig(source, submitter, channelName)).config;
  const before = current.getSequence();
  const envelope = new common.ConfigUpdateEnvelope();
  envelope.setConfigUpdate(updateBytes);
  for (const s of signatures) {
    const cs = new common.ConfigSignature();
    cs.setSignatureHeader(Buffer.from(s.signatureHeader, 'base64'));
    cs.setSignature(Buffer.from(s.signature, 'base64'));
    envelope.addSignatures(cs);
  }
  await broadcastToOrdering(orderer, channelName, await signedEnvelope(submitter, common.HeaderType.CONFIG_UPDATE, channelName, envelope.serializeBinary()), bftBroadcastOf(current, request.consenters));
  const deadline = Date.now() + (request.timeoutMs ?? 60_000);
  for (;;) {
    const now = await fetchConfig(source, submitter, channelName);
    if (now.config.getSequence() > before) return { sequence: now.config.getSequence(), blockNumber: now.blockNumber };
    if (Date.now() > deadline) throw new UnavailableError(`The orderer accepted the config update of channel "${channelName}" but served no new config in time.`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function decodeUpdate(updateBytes: Uint8Array): common.ConfigUpdate {
  try {
    return common.ConfigUpdate.deserializeBinary(updateBytes);
  } catch {
    throw new ValidationError('Not a channel config update.', [{ field: 'update', message: 'not a ConfigUpdate' }]);
  }
}

/** The channel's current config sequence, and the update's modification policies evaluated against the current config with one admin signature of each of `signedBy`. */
export async function evaluateConfigUpdate(request: { orderer: Endpoint; channelName: string; updateBytes: Uint8Array; signedBy: string[]; reader: FabricSigner }): Promise<{ sequence: number; requirement: SignatureRequirement }> {
  const current = await fetchConfig({ kind: 'orderer', endpoint: request.orderer }, request.reader, request.channelName);
  const policies = requiredPolicies(current.config, decodeUpdate(request.updateBytes));
  return { sequence: current.config.getSequence(), requirement: signatureRequirement(current.config, policies, request.signedBy) };
}

/** A ConfigSignature made elsewhere, verified against the channel's current config (400 naming why it is refused). */
export async function verifyDetachedSignature(request: { orderer: Endpoint; channelName: string; updateBytes: Uint8Array; signature: { signatureHeader: string; signature: string }; reader: FabricSigner; now: Date }): Promise<DetachedConfigSignature> {
  const current = await fetchConfig({ kind: 'orderer', endpoint: request.orderer }, request.reader, request.channelName);
  const raw = { signatureHeader: Buffer.from(request.signature.signatureHeader, 'base64'), signature: Buffer.from(request.signature.signature, 'base64') };
  const { mspId } = verifyConfigSignature(current.config, request.updateBytes, raw, request.now);
  return { mspId, signatureHeader: raw.signatureHeader.toString('base64'), signature: raw.signature.toString('base64') };
}

/** The file `peer channel signconfigtx -f` signs: a CONFIG_UPDATE envelope of the update with the signatures so far. */
export function configUpdateFile(channelName: string, updateBytes: Uint8Array, signatures: DetachedConfigSignature[]): Uint8Array {
  return configUpdateTxEnvelope(channelName, updateBytes, signatures.map((s) => ({ signatureHeader: Buffer.from(s.signatureHeader, 'base64'), signature: Buffer.from(s.signature, 'base64') })));
}

/** The ConfigSignatures of a signed signconfigtx file carrying `updateBytes` (400 when it carries another update). */
export function signaturesOfConfigUpdateFile(file: Uint8Array, updateBytes: Uint8Array): Array<{ signatureHeader: string; signature: string }> {
  return signaturesOfSignedConfigTx(file, updateBytes).map((s) => ({ signatureHeader: Buffer.from(s.signatureHeader).toString('base64'), signature: Buffer.from(s.signature).toString('base64') }));
}

/** The subject of the certificate a ConfigSignature's header names ("CN=Admin@org1.example.com, OU=admin"), or null. */
export function signerOfConfigSignature(signatureHeader: string): string | null {
  try {
    const creator = msp.SerializedIdentity.deserializeBinary(common.SignatureHeader.deserializeBinary(Buffer.from(signatureHeader, 'base64')).getCreator_asU8());
    return new X509Certificate(Buffer.from(creator.getIdBytes_asU8())).subject.split('\n').filter((l) => /^(CN|OU)=/.test(l)).join(', ') || null;
  } catch {
    return null;
  }
}
