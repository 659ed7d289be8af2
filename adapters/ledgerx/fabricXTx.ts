// Fabric-X transactions as fabric-x-committer 1.0.4 verifies them:
//   namespaceSigningBytes(txId, ns, metadata?) -> the DER bytes an endorser signs for one
//       namespace of a transaction (fabric-x-common applicationpb/asn1.go: SEQUENCE { txID
//       UTF8String, metadata SEQUENCE OF OCTET STRING (left out when absent), namespaceID
//       UTF8String, namespaceVersion INTEGER, reads, readWrites, writes }; a version absent is
//       -1 and, being the DEFAULT, left out)
//   namespacePolicyBytes(policy) -> applicationpb.NamespacePolicy (an MSP rule is a Fabric
//       SignaturePolicyEnvelope: n out of the principals' signatures)
//   readNamespacePolicy(bytes)   -> the policy decoded back
//   namespaceCreationTx(...)     -> the signed common.Envelope of a meta-namespace transaction
//       (header type MESSAGE, payload data applicationpb.Tx) and its id
import { createPublicKey } from 'node:crypto';
import { common, msp } from '@hyperledger/fabric-protos';
import type { FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import type { LedgerXNamespacePolicy } from '../../domain/ledgerx/ledgerxLedgerPorts.ts';
import { channelHeader, newTxContext, signatureHeader } from '../consortium/fabricSigningEnvelope.ts';
import { decode, fx, META_NAMESPACE } from './fabricXProtos.ts';

export interface TxNamespaceInput {
  nsId: string;
  nsVersion: number;
  readsOnly?: { key: Uint8Array; version?: number | null }[];
  readWrites?: { key: Uint8Array; value: Uint8Array; version?: number | null }[];
  blindWrites?: { key: Uint8Array; value: Uint8Array }[];
}

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, body: Uint8Array) => Buffer.concat([Buffer.from([tag]), derLength(body.length), Buffer.from(body)]);
const seq = (...items: Uint8Array[]) => tlv(0x30, Buffer.concat(items));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const octets = (b: Uint8Array) => tlv(0x04, b);

/** An int64 as Go's encoding/asn1 writes it: minimal two's complement. */
export function derInteger(value: bigint): Buffer {
  const bytes: number[] = [];
  let v = value;
  for (;;) {
    const byte = Number(BigInt.asUintN(8, v));
    bytes.unshift(byte);
    v >>= 8n;
    // Done when the rest is the sign extension of the byte just written.
    if ((v === 0n && !(byte & 0x80)) || (v === -1n && byte & 0x80)) break;
  }
  return tlv(0x02, Buffer.from(bytes));
}

const version = (v: number | null | undefined) => (v === null || v === undefined ? Buffer.alloc(0) : derInteger(BigInt(v)));

export function namespaceSigningBytes(txId: string, ns: TxNamespaceInput, metadata: Uint8Array[] = []): Buffer {
  return seq(
    utf8(txId),
    metadata.length ? seq(...metadata.map(octets)) : Buffer.alloc(0),
    utf8(ns.nsId),
    derInteger(BigInt(ns.nsVersion)),
    seq(...(ns.readsOnly ?? []).map((r) => seq(octets(r.key), version(r.version)))),
    seq(...(ns.readWrites ?? []).map((rw) => seq(octets(rw.key), octets(rw.value), version(rw.version)))),
    seq(...(ns.blindWrites ?? []).map((w) => seq(octets(w.key), octets(w.value)))),
  );
}

const ROLE = { member: msp.MSPRole.MSPRoleType.MEMBER, admin: msp.MSPRole.MSPRoleType.ADMIN } as const;

export function namespacePolicyBytes(policy: Exclude<LedgerXNamespacePolicy, { type: 'UNKNOWN' }>): Uint8Array {
  if (policy.type === 'THRESHOLD') {
    const key = createPublicKey(policy.publicKeyPem ?? '').export({ type: 'spki', format: 'pem' }).toString();
    return fx.NamespacePolicy.encode({ threshold_rule: { scheme: policy.scheme, public_key: Buffer.from(key) } }).finish();
  }
  const envelope = new common.SignaturePolicyEnvelope();
  envelope.setVersion(0);
  envelope.setIdentitiesList(policy.principals.map((p) => {
    const role = new msp.MSPRole();
    role.setMspIdentifier(p.mspId);
    role.setRole(ROLE[p.role]);
    const principal = new msp.MSPPrincipal();
    principal.setPrincipalClassification(msp.MSPPrincipal.Classification.ROLE);
    principal.setPrincipal(role.serializeBinary());
    return principal;
  }));
  const nOutOf = new common.SignaturePolicy.NOutOf();
  nOutOf.setN(policy.signaturesRequired);
  nOutOf.setRulesList(policy.principals.map((_, i) => {
    const rule = new common.SignaturePolicy();
    rule.setSignedBy(i);
    return rule;
  }));
  const rule = new common.SignaturePolicy();
  rule.setNOutOf(nOutOf);
  envelope.setRule(rule);
  return fx.NamespacePolicy.encode({ msp_rule: Buffer.from(envelope.serializeBinary()) }).finish();
}

export function readNamespacePolicy(bytes: Uint8Array): LedgerXNamespacePolicy {
  try {
    const p = decode<{ threshold_rule?: { scheme: string; public_key: Buffer }; msp_rule?: Buffer }>(fx.NamespacePolicy, bytes);
    if (p.threshold_rule) {
      const pem = p.threshold_rule.public_key.toString('utf8');
      return { type: 'THRESHOLD', scheme: p.threshold_rule.scheme, publicKeyPem: pem.startsWith('-----BEGIN') ? pem : null };
    }
    if (!p.msp_rule) return { type: 'UNKNOWN' };
    const envelope = common.SignaturePolicyEnvelope.deserializeBinary(p.msp_rule);
    const principals = envelope.getIdentitiesList().map((principal) => {
      if (principal.getPrincipalClassification() !== msp.MSPPrincipal.Classification.ROLE) return { mspId: '(identity)', role: 'member' as const };
      const role = msp.MSPRole.deserializeBinary(principal.getPrincipal_asU8());
      return { mspId: role.getMspIdentifier(), role: role.getRole() === msp.MSPRole.MSPRoleType.ADMIN ? 'admin' as const : 'member' as const };
    });
    const rule = envelope.getRule();
    return { type: 'MSP', principals, signaturesRequired: rule?.hasNOutOf() ? rule.getNOutOf()!.getN() : principals.length };
  } catch {
    return { type: 'UNKNOWN' };
  }
}

/** The meta-namespace transaction creating `name`: a read-write of key `name` (version absent: it must not exist yet) whose value is the policy. */
export async function namespaceCreationTx(req: { channel: string; name: string; policy: Exclude<LedgerXNamespacePolicy, { type: 'UNKNOWN' }>; metaVersion: number; signers: FabricSigner[] }): Promise<{ txId: string; envelope: Uint8Array }> {
  if (!req.signers.length) throw new Error('a meta-namespace transaction needs at least one signer');
  const ctx = newTxContext(req.signers[0]);
  const ns: TxNamespaceInput = { nsId: META_NAMESPACE, nsVersion: req.metaVersion, readWrites: [{ key: Buffer.from(req.name), value: namespacePolicyBytes(req.policy), version: null }] };
  const signed = namespaceSigningBytes(ctx.txId, ns);
  const endorsements = await Promise.all(req.signers.map(async (s) => ({
    endorsement: Buffer.from(await s.sign(signed)),
    identity: { msp_id: s.mspId, certificate: Buffer.from(s.certificatePem) },
  })));
  const tx = fx.Tx.encode({
    namespaces: [{ ns_id: ns.nsId, ...(ns.nsVersion ? { ns_version: ns.nsVersion } : {}), read_writes: ns.readWrites!.map((rw) => ({ key: rw.key, value: rw.value })) }],
    endorsements: [{ endorsements_with_identity: endorsements }],
  }).finish();
  const header = new common.Header();
  header.setChannelHeader(channelHeader(common.HeaderType.MESSAGE, req.channel, ctx.txId).serializeBinary());
  header.setSignatureHeader(signatureHeader(ctx).serializeBinary());
  const payload = new common.Payload();
  payload.setHeader(header);
  payload.setData(tx);
  const payloadBytes = payload.serializeBinary();
  const envelope = new common.Envelope();
  envelope.setPayload(payloadBytes);
  envelope.setSignature(await req.signers[0].sign(payloadBytes));
  return { txId: ctx.txId, envelope: envelope.serializeBinary() };
}
