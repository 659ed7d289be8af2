// Detached ConfigSignatures checked against the channel config before a signing proposal keeps
// them (a genesis config of Org1MSP and Org2MSP, no node): an admin of a channel organization
// verifies; a damaged signature, an organization outside the channel, a certificate of another
// CA under the organization's name, a member that is no admin and a high-S signature are each
// refused naming why. With Fabric's own `peer channel signconfigtx` (2.5.12, found through
// LNM_FABRIC_BIN), the file the service hands out is signed offline by Org2MSP's admin and the
// signature read back from it verifies.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrivateKey } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { common } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock } from '../../../adapters/consortium/channelConfig.ts';
import { planConfigUpdate } from '../../../adapters/consortium/configUpdate.ts';
import { signConfigUpdate } from '../../../adapters/consortium/configUpdateDistributed.ts';
import { configUpdateTxEnvelope, signaturesOfSignedConfigTx, verifyConfigSignature } from '../../../adapters/consortium/configSignatureVerify.ts';
import { privateKeyFabricSigner } from '../../../adapters/consortium/fabricSigning.ts';
import { curveOrder, rsToDer } from '../../../adapters/keyProviders/signingEcdsa.ts';
import { p256 } from '@noble/curves/nist';
import { ValidationError } from '../../../domain/shared/errors.ts';
import type { FabricSigner } from '../../../domain/consortium/consortiumPorts.ts';
import { testOrganization, fabricConfigDir, fabricMissing, fabricProgram, type TestOrganization } from '../../helpers/fabric.ts';
import { mspPaths } from '../../../adapters/consortium/fabricMsp.ts';
import { requires } from '../../helpers/requirements.ts';
import { genesisInput, rejects } from './channelTestInput.ts';

const execFileAsync = promisify(execFile);

interface Ctx { org1: TestOrganization; org2: TestOrganization; org3: TestOrganization; config: common.Config; update: Uint8Array }
const test = suite<Ctx>('detached config signatures verified against the channel\'s MSPs', {} as Ctx);

test.before(async (ctx) => {
  ctx.org1 = await testOrganization('Org1MSP', 'org1.example.com');
  ctx.org2 = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.org3 = await testOrganization('Org3MSP', 'org3.example.com');
  ctx.config = configFromBlock(buildChannelGenesisBlock(await genesisInput('mychannel', ctx.org1, ctx.org2)));
  ctx.update = planConfigUpdate(ctx.config, 'mychannel', { kind: 'policies', policies: { Endorsement: { type: 'ImplicitMeta', rule: 'ANY Endorsement' } } }, ['Org1MSP']).update!.serializeBinary();
});

const raw = async (update: Uint8Array, signer: FabricSigner) => {
  const s = await signConfigUpdate(update, signer);
  return { signatureHeader: Buffer.from(s.signatureHeader, 'base64'), signature: Buffer.from(s.signature, 'base64') };
};
const verify = (ctx: Ctx, sig: { signatureHeader: Uint8Array; signature: Uint8Array }) => Promise.resolve().then(() => verifyConfigSignature(ctx.config, ctx.update, sig, new Date()));

test('an admin of a channel organization: verified, its MSP named', async (ctx) => {
  const r = await verify(ctx, await raw(ctx.update, ctx.org2.adminSigner));
  assert.is(r.mspId, 'Org2MSP');
});

test('a damaged signature, or one over another update, does not verify', async (ctx) => {
  const good = await raw(ctx.update, ctx.org2.adminSigner);
  const other = planConfigUpdate(ctx.config, 'mychannel', { kind: 'policies', policies: { Endorsement: { type: 'ImplicitMeta', rule: 'ALL Endorsement' } } }, ['Org1MSP']).update!.serializeBinary();
  const e = await rejects(verify(ctx, await raw(other, ctx.org2.adminSigner)), ValidationError, /does not verify with the key of Org2MSP's admin certificate/);
  assert.is(e.status, 400);
  assert.is(e.code, 'SIGNATURE_INVALID');
  const header = Buffer.from(good.signatureHeader);
  header[header.length - 1] ^= 1; // the nonce's last byte
  await rejects(verify(ctx, { signatureHeader: header, signature: good.signature }), ValidationError, /does not verify/);
  await rejects(verify(ctx, { signatureHeader: Buffer.from('not a header'), signature: good.signature }), ValidationError, /not a Fabric SignatureHeader|names no MSP/);
});

test('an organization outside the channel, and another CA\'s certificate under a member\'s MSP id, are refused', async (ctx) => {
  await rejects(verify(ctx, await raw(ctx.update, ctx.org3.adminSigner)), ValidationError, /Org3MSP is no organization of the channel/);
  const impostor = privateKeyFabricSigner(createPrivateKey(ctx.org3.admin.keyPem), 'Org2MSP', ctx.org3.admin.certPem);
  await rejects(verify(ctx, await raw(ctx.update, impostor)), ValidationError, /was not issued by a CA of Org2MSP's MSP/);
});

test('a member of the organization that is not its admin (a peer identity) is refused', async (ctx) => {
  const peer = await ctx.org2.issue('peer0.org2.example.com', 'peer');
  const signer = privateKeyFabricSigner(createPrivateKey(peer.identity.keyPem), 'Org2MSP', peer.identity.certPem);
  await rejects(verify(ctx, await raw(ctx.update, signer)), ValidationError, /is not an admin of Org2MSP/);
});

test('the high-S twin of a valid signature is refused (Fabric refuses it)', async (ctx) => {
  const good = await raw(ctx.update, ctx.org2.adminSigner);
  const sig = p256.Signature.fromBytes(good.signature, 'der');
  const high = rsToDer(sig.r, curveOrder('P-256') - sig.s, 'P-256');
  await rejects(verify(ctx, { signatureHeader: good.signatureHeader, signature: high }), ValidationError, /high-S/);
});

requires(test, 'fabric', fabricMissing)('peer channel signconfigtx signs the handed-out file offline; its signature is read back and verifies', async (ctx) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'lnm-signconfigtx-'));
  try {
    const file = path.join(dir, 'update.tx');
    await writeFile(file, configUpdateTxEnvelope('mychannel', ctx.update));
    await ctx.org2.writeAdminMsp(path.join(dir, 'admin'));
    await execFileAsync(fabricProgram('peer'), ['channel', 'signconfigtx', '-f', file], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FABRIC_CFG_PATH: fabricConfigDir(), CORE_PEER_LOCALMSPID: 'Org2MSP', CORE_PEER_MSPCONFIGPATH: path.join(dir, 'admin', mspPaths.dir) },
      timeout: 30_000,
    });
    const signed = await readFile(file);
    const signatures = signaturesOfSignedConfigTx(signed, ctx.update);
    assert.is(signatures.length, 1);
    assert.is(verifyConfigSignature(ctx.config, ctx.update, signatures[0], new Date()).mspId, 'Org2MSP');
    const other = planConfigUpdate(ctx.config, 'mychannel', { kind: 'batch', batch: { batchTimeout: '3s' } }, ['Org1MSP']).update!.serializeBinary();
    assert.throws(() => signaturesOfSignedConfigTx(signed, other), /another config update/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
