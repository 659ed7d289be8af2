// A ConfigSignature made elsewhere (an organization's operator signing a config update offline,
// e.g. with `peer channel signconfigtx`, or another instance's admin), verified here against the
// channel's current config before it is kept, as the orderer's MSP would: the signature header's
// creator is an X.509 identity of an organization of the channel, issued by one of that MSP's
// root or intermediate CAs, valid now, not in its revocation list, an admin of it (listed in its
// admins, or carrying its NodeOUs admin OU), and the ECDSA signature over header || update
// verifies with its key and is low-S (Fabric refuses high-S signatures). Each refusal is a 400
// naming the reason.
//   verifyConfigSignature(config, updateBytes, { signatureHeader, signature }, now) -> { mspId, certificatePem }
//   signaturesOfSignedConfigTx(envelopeBytes, updateBytes) -> the ConfigSignatures of a signconfigtx output file
//   configUpdateTxEnvelope(channelName, updateBytes, signatures) -> an unsigned CONFIG_UPDATE Envelope (input of signconfigtx)
import { X509Certificate, createVerify } from 'node:crypto';
import { common, msp } from '@hyperledger/fabric-protos';
import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificateList } from '@peculiar/asn1-x509';
import type { EcCurve } from '../../domain/keys/keyProvider.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { curveOrder, ecdsaCurve } from '../keyProviders/signingEcdsa.ts';
import { channelHeader } from './fabricSigningEnvelope.ts';

export interface RawConfigSignature {
  signatureHeader: Uint8Array;
  signature: Uint8Array;
}

const refuse = (message: string, field = 'signature'): never => {
  throw new ValidationError(`The signature is refused: ${message}.`, [{ field, message }], 'SIGNATURE_INVALID');
};

/** The FABRIC MSP of `mspId` among the channel's application and orderer organizations. */
function channelMsp(config: common.Config, mspId: string): msp.FabricMSPConfig | null {
  for (const section of ['Application', 'Orderer']) {
    const groups = config.getChannelGroup()?.getGroupsMap().get(section)?.getGroupsMap();
    if (!groups) continue;
    for (const name of [...groups.keys()]) {
      const value = groups.get(name)!.getValuesMap().get('MSP');
      if (!value) continue;
      const mspConfig = msp.MSPConfig.deserializeBinary(value.getValue_asU8());
      if (mspConfig.getType() !== 0) continue;
      const fabric = msp.FabricMSPConfig.deserializeBinary(mspConfig.getConfig_asU8());
      if (fabric.getName() === mspId) return fabric;
    }
  }
  return null;
}

const pemText = (b: Uint8Array | string) => (typeof b === 'string' ? b : Buffer.from(b).toString('utf8'));

function revokedSerials(fabric: msp.FabricMSPConfig): Set<string> {
  const serials = new Set<string>();
  for (const crl of fabric.getRevocationListList_asU8()) {
    try {
      const list = AsnConvert.parse(Buffer.from(pemText(crl).replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'), CertificateList);
      for (const r of list.tbsCertList.revokedCertificates ?? []) serials.add(Buffer.from(r.userCertificate).toString('hex').replace(/^0+/, '').toUpperCase());
    } catch {
      continue;
    }
  }
  return serials;
}

/** Is `cert` issued (directly, or through the MSP's intermediates) by one of the MSP's root CAs? */
function chainsToRoot(cert: X509Certificate, fabric: msp.FabricMSPConfig): boolean {
  const roots = fabric.getRootCertsList_asU8().map((c) => new X509Certificate(pemText(c)));
  const intermediates = fabric.getIntermediateCertsList_asU8().map((c) => new X509Certificate(pemText(c)));
  const issuedBy = (child: X509Certificate, parent: X509Certificate) => child.checkIssued(parent) && child.verify(parent.publicKey);
  let current = cert;
  for (let depth = 0; depth < 5; depth++) {
    if (roots.some((r) => issuedBy(current, r))) return true;
    const next = intermediates.find((i) => i !== current && issuedBy(current, i));
    if (!next) return false;
    current = next;
  }
  return false;
}

function isAdmin(cert: X509Certificate, fabric: msp.FabricMSPConfig): boolean {
  const der = cert.raw.toString('base64');
  if (fabric.getAdminsList_asU8().some((a) => new X509Certificate(pemText(a)).raw.toString('base64') === der)) return true;
  const ous = fabric.getFabricNodeOus();
  if (!ous?.getEnable()) return false;
  const adminOu = ous.getAdminOuIdentifier()?.getOrganizationalUnitIdentifier() || 'admin';
  return cert.subject.split('\n').some((line) => line === `OU=${adminOu}` || line.startsWith('OU=') && line.slice(3).split('+').includes(adminOu));
}

const curveOf: Record<string, EcCurve> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

export function verifyConfigSignature(config: common.Config, updateBytes: Uint8Array, sig: RawConfigSignature, now: Date): { mspId: string; certificatePem: string } {
  let creator: msp.SerializedIdentity;
  try {
    creator = msp.SerializedIdentity.deserializeBinary(common.SignatureHeader.deserializeBinary(sig.signatureHeader).getCreator_asU8());
  } catch {
    return refuse('signature_header is not a Fabric SignatureHeader with a creator', 'signature_header');
  }
  const mspId = creator.getMspid();
  if (!mspId) refuse('the signature header names no MSP', 'signature_header');
  const fabric = channelMsp(config, mspId);
  if (!fabric) refuse(`${mspId} is no organization of the channel`, 'signature_header');
  const certificatePem = pemText(creator.getIdBytes_asU8());
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certificatePem);
  } catch {
    return refuse('the signer\'s identity is not an X.509 certificate', 'signature_header');
  }
  if (!chainsToRoot(cert, fabric!)) refuse(`the signer's certificate (${cert.subject.replace(/\n/g, ', ')}) was not issued by a CA of ${mspId}'s MSP in the channel`, 'signature_header');
  if (new Date(cert.validTo) < now || new Date(cert.validFrom) > now) refuse(`the signer's certificate is not valid now (valid from ${cert.validFrom} to ${cert.validTo})`, 'signature_header');
  if (revokedSerials(fabric!).has(cert.serialNumber.replace(/^0+/, '').toUpperCase())) refuse(`the signer's certificate (serial ${cert.serialNumber}) is revoked in ${mspId}'s revocation list`, 'signature_header');
  if (!isAdmin(cert, fabric!)) refuse(`the signer (${cert.subject.replace(/\n/g, ', ')}) is not an admin of ${mspId} (neither among its admins nor carrying its admin OU)`, 'signature_header');
  const curve = curveOf[cert.publicKey.asymmetricKeyDetails?.namedCurve ?? ''];
  if (!curve) refuse('the signer\'s key is not an ECDSA P-256, P-384 or P-521 key');
  const message = Buffer.concat([Buffer.from(sig.signatureHeader), Buffer.from(updateBytes)]);
  const verifier = createVerify(curve === 'P-256' ? 'sha256' : curve === 'P-384' ? 'sha384' : 'sha512');
  verifier.update(message);
  let ok = false;
  try {
    ok = verifier.verify(cert.publicKey, Buffer.from(sig.signature));
  } catch {
    ok = false;
  }
  if (!ok) refuse(`it does not verify with the key of ${mspId}'s admin certificate over this config update (another update, or damaged)`);
  const s = ecdsaCurve(curve).Signature.fromBytes(Buffer.from(sig.signature), 'der').s;
  if (s > curveOrder(curve) >> 1n) refuse('it is a high-S ECDSA signature, which Fabric refuses (normalize s to n - s)');
  return { mspId, certificatePem };
}

/** A CONFIG_UPDATE Envelope carrying the update and the signatures so far, unsigned: the file `peer channel signconfigtx -f` adds its signature to. */
export function configUpdateTxEnvelope(channelName: string, updateBytes: Uint8Array, signatures: RawConfigSignature[] = []): Uint8Array {
  const updateEnvelope = new common.ConfigUpdateEnvelope();
  updateEnvelope.setConfigUpdate(updateBytes);
  for (const s of signatures) {
    const cs = new common.ConfigSignature();
    cs.setSignatureHeader(s.signatureHeader);
    cs.setSignature(s.signature);
    updateEnvelope.addSignatures(cs);
  }
  const header = new common.Header();
  header.setChannelHeader(channelHeader(common.HeaderType.CONFIG_UPDATE, channelName, '').serializeBinary());
  header.setSignatureHeader(new common.SignatureHeader().serializeBinary());
  const payload = new common.Payload();
  payload.setHeader(header);
  payload.setData(updateEnvelope.serializeBinary());
  const envelope = new common.Envelope();
  envelope.setPayload(payload.serializeBinary());
  return envelope.serializeBinary();
}

/** The ConfigSignatures of a CONFIG_UPDATE Envelope (signconfigtx's output file) whose config update is `updateBytes`. */
export function signaturesOfSignedConfigTx(envelopeBytes: Uint8Array, updateBytes: Uint8Array): RawConfigSignature[] {
  let updateEnvelope: common.ConfigUpdateEnvelope;
  try {
    const payload = common.Payload.deserializeBinary(common.Envelope.deserializeBinary(envelopeBytes).getPayload_asU8());
    updateEnvelope = common.ConfigUpdateEnvelope.deserializeBinary(payload.getData_asU8());
  } catch {
    return refuse('envelope is not a CONFIG_UPDATE transaction file', 'envelope');
  }
  if (Buffer.compare(Buffer.from(updateEnvelope.getConfigUpdate_asU8()), Buffer.from(updateBytes)) !== 0) refuse('the envelope carries another config update than this proposal\'s', 'envelope');
  return updateEnvelope.getSignaturesList().map((s) => ({ signatureHeader: s.getSignatureHeader_asU8(), signature: s.getSignature_asU8() }));
}
