// The cross-check of the ledgerX genesis block the service encodes (adapters/ledgerx/
// ledgerxGenesis.ts): for the same parties and settings, Fabric-X's own tools build the block
// (armageddon createSharedConfigProto + fabric-x-common's configtxgen, test/helpers/
// ledgerxGenesisTools.ts), both are decoded by fabric-x-common's configtxlator (`proto_decode
// --type common.Block`, which also decodes the Arma shared config inside ConsensusType "arma")
// and compared field by field. Only what is random or the clock's is left out: the channel
// header's timestamp and tx id, the signature header's nonce, and the block's data hash (a hash
// over those), which is checked instead against fabric-x-common's ComputeBlockDataHash of each
// block's own data (length-prefixed entries: a Fabric 2.5 data hash there makes arma's assembler
// panic on block 1). Skipped, saying why, where the programs are absent.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { requires } from '../../helpers/requirements.ts';
import { findFabricXProgram } from '../../../adapters/ledgerx/fabricXPrograms.ts';
import { buildLedgerXGenesis, fabricXBlockDataHash } from '../../../adapters/ledgerx/ledgerxGenesis.ts';
import { common } from '@hyperledger/fabric-protos';
import { createHash } from 'node:crypto';
import { resolveLedgerXConsensus } from '../../../domain/ledgerx/ledgerxConsensus.ts';
import { buildLedgerXGenesisWithTools } from '../../helpers/ledgerxGenesisTools.ts';
import { genesisParties } from './ledgerxGenesisParties.ts';

const tools = await Promise.all((['configtxlator', 'armageddon', 'configtxgen'] as const).map((p) => findFabricXProgram(p, process.env)));
const missing = tools.map((f) => (f.ok ? undefined : f.reason)).find(Boolean);
const configtxlator = tools[0].ok ? tools[0].path : '';
const t = requires(suite('ledgerX genesis block: the service\'s encoding = Fabric-X configtxgen + armageddon, decoded by Fabric-X configtxlator'), 'fabric-x', missing);

async function decode(block: Uint8Array): Promise<any> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lnm-ledgerx-decode-'));
  try {
    await writeFile(path.join(dir, 'b.block'), block);
    await promisify(execFile)(configtxlator, ['proto_decode', '--type', 'common.Block', `--input=${path.join(dir, 'b.block')}`, `--output=${path.join(dir, 'b.json')}`]);
    return JSON.parse(await readFile(path.join(dir, 'b.json'), 'utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The decoded block without what is legitimately random or the clock's. */
function comparable(decoded: any): any {
  const copy = structuredClone(decoded);
  const header = copy.data.data[0].payload.header;
  for (const k of ['timestamp', 'tx_id']) {
    assert.ok(header.channel_header[k], `channel_header.${k} present`);
    delete header.channel_header[k];
  }
  assert.ok(header.signature_header.nonce, 'a nonce');
  delete header.signature_header.nonce;
  delete copy.header.data_hash;
  return copy;
}

/** Every path where two JSON values differ (for a message that says which field). */
function differences(a: unknown, b: unknown, at = ''): string[] {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) return [`${at}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`];
  if (a && typeof a === 'object') {
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    return [...keys].flatMap((k) => differences((a as any)[k], (b as any)[k], `${at}/${k}`));
  }
  return a === b ? [] : [`${at}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`];
}

/** fabric-x-common's ComputeBlockDataHash, written out here apart from the service's. */
function dataHashOf(block: Uint8Array): string {
  const h = createHash('sha256');
  for (const d of common.Block.deserializeBinary(block).getData()!.getDataList_asU8()) {
    const size = Buffer.alloc(4);
    size.writeUInt32BE(d.length);
    h.update(size).update(d);
  }
  return h.digest('base64');
}

async function crossCheck(channel: string, mspIds: string[], settings = resolveLedgerXConsensus()) {
  const parties = await genesisParties(mspIds);
  const ourBlock = buildLedgerXGenesis({ channel, parties, settings });
  const theirBlock = await buildLedgerXGenesisWithTools({ channel, parties, settings });
  const ours = await decode(ourBlock);
  const theirs = await decode(theirBlock);
  assert.is(theirs.header.data_hash, dataHashOf(theirBlock), 'configtxgen\'s data hash is the length-prefixed one');
  assert.is(ours.header.data_hash, dataHashOf(ourBlock), 'the service\'s data hash is the length-prefixed one');
  assert.is(Buffer.from(fabricXBlockDataHash(common.Block.deserializeBinary(ourBlock).getData()!.getDataList_asU8())).toString('base64'), ours.header.data_hash);
  const diff = differences(comparable(ours), comparable(theirs));
  assert.equal(diff, [], `fields that differ (service vs configtxgen):\n${diff.join('\n')}`);
  return ours;
}

t('one party, the default settings: every field as configtxgen + armageddon write it', async () => {
  const block = await crossCheck('arma', ['Org1MSP']);
  const channel = block.data.data[0].payload.data.config.channel_group;
  assert.equal(Object.keys(channel.values.Capabilities.value.capabilities), ['V3_0']);
  const consensus = channel.groups.Orderer.values.ConsensusType.value;
  assert.is(consensus.type, 'arma');
  assert.is(consensus.metadata.PartiesConfig.length, 1);
  assert.is(consensus.metadata.MaxPartyID, 1);
  assert.is(consensus.metadata.ConsensusConfig.SmartBFTConfig.RequestBatchMaxCount, '100');
});

t('four parties of two organizations (one of them with three), settings given: the same field by field; BlockValidation is a quorum of 3 consenters', async () => {
  const settings = resolveLedgerXConsensus({
    smartBft: { requestBatchMaxCount: 250, requestBatchMaxInterval: '200ms', leaderRotation: true, decisionsPerLeader: 3, syncOnStart: true, viewChangeTimeout: '30s' },
    batching: { batchCreationTimeout: '250ms', maxMessageCount: 500, absoluteMaxBytes: 4194304, firstStrikeThreshold: '5s' },
  });
  const block = await crossCheck('two-orgs', ['OrgAMSP', 'OrgBMSP', 'OrgAMSP', 'OrgAMSP'], settings);
  const orderer = block.data.data[0].payload.data.config.channel_group.groups.Orderer;
  assert.equal(Object.keys(orderer.groups).sort(), ['OrgAMSP', 'OrgBMSP']);
  assert.is(orderer.groups.OrgAMSP.values.Endpoints.value.addresses.length, 6);
  assert.is(orderer.policies.BlockValidation.policy.value.rule.n_out_of.n, 3);
  const meta = orderer.values.ConsensusType.value.metadata;
  assert.is(meta.MaxPartyID, 4);
  assert.is(meta.ConsensusConfig.SmartBFTConfig.DecisionsPerLeader, '3');
  assert.is(meta.BatchingConfig.BatchSize.MaxMessageCount, 500);
});

t.run();
