// A migration's rollback that fails PART WAY through putting a backup back, taken up again once the
// fault is gone (issue 37 item 7; real Fabric 3.1: LNM_FABRIC_RELEASES or LNM_FABRIC_BIN with a 3.1
// release, a counted skip without it; root and chattr on ext4 for the fault, a counted skip without
// them). Four raft orderers and a peer on 3.1, channel V3_0. Two real faults: a directory inside
// orderer 2's data directory is made immutable (chattr +i: its entries cannot be removed, not even
// by root; the orderer never writes there, raft's snapshot directory of the channel), and orderer
// 0's port is taken by another program from phase backup on, so orderer 0 does not start after
// its backup and the migration rolls back. The rollback puts orderer 0's and 1's backups back,
// then empties orderer 2's data directory as far as it can (everything but the immutable
// directory: the ledger is gone) and fails: 409 MIGRATION_FAILED "rollback incomplete" naming
// orderer 2 and the cause, saying what to do, the channel unknown, the record failed in phase
// rollback, no orderer started (none runs on a chain only partly put back). The attribute removed
// and the port given back, the POST takes the rollback up again: it puts every backup back
// (orderer 2's half-emptied data directory too: before, a failure in phase backup before its
// `backup:` step counted as "nothing to put back", and orderer 2 was started on what the failed
// rollback left of its data, without the channel), the channel etcdraft in STATE_NORMAL,
// committing, its blocks kept, each orderer holding the channel at the restored height or above
// (Fabric's own channel participation API), and a new migration's dry run answered.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requiresAll } from '../../helpers/requirements.ts';
import { blockHashes, channelCommits, fabric31, fabric31Server, fourOrdererRaftChannel, ordererHolds, portTakenInPhase, rollbackIncomplete, rollbackTakenUpAgain } from './consortiumApi.ts';

/** Why chattr +i cannot be the fault here (not root, no chattr, a filesystem without the attribute), or undefined. */
function immutableMissing(): string | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-chattr-'));
  const probe = path.join(dir, 'probe');
  mkdirSync(probe);
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'pipe' });
    try {
      rmSync(probe, { recursive: true });
      return 'chattr +i did not keep a directory from being removed';
    } catch {
      return undefined;
    }
  } catch (err) {
    return `chattr +i refused: ${(err as Error).message.split('\n')[0]}`;
  } finally {
    try {
      execFileSync('chattr', ['-i', probe], { stdio: 'pipe' });
    } catch {
      /* never set */
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

const t = requiresAll(suite('consensus migration: a rollback that failed part way through a backup, taken up again (real Fabric 3.1)'), ['fabric-releases', fabric31.skip], ['immutable-files', immutableMissing()]);
const { api, server } = fabric31Server(t);
let setup: Awaited<ReturnType<typeof fourOrdererRaftChannel>>;
const channel = 'rpchannel';
const configPath = () => `/networks/${setup.network.id}/channels/${channel}/config`;
const migrate = (query = '', body: Record<string, unknown> = {}) => api('POST', `/networks/consortium/${setup.network.id}/consensus/migrate${query}`, { to: 'smartbft', ...body });
const commits = channelCommits(api, () => setup.network.id, 'Org1MSP', () => setup.peer.config.port, () => setup.height(), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000 });
const nodeDir = (nodeId: number) => path.join(server().dataDir, 'nodes', `node-${nodeId}`);

t('a backup put back part way (a directory root cannot remove): 409 "rollback incomplete" naming the orderer and the cause, none started; the fault removed, a new POST puts every backup back: etcdraft, committing, every orderer on the channel', async () => {
  setup = await fourOrdererRaftChannel(api, 'rp', 'rpnet', channel, { fabricVersion: fabric31.version });
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
  const h = (await setup.height())!;
  const hashes = await blockHashes(api, setup.network.id, h);
  const [orderer0, , orderer2] = setup.orderers;
  // Raft's snapshot directory of the channel: made at the channel's start, written only every
  // SnapshotIntervalSize (16 MB of blocks), so the orderer runs on as before.
  const stuck = path.join(nodeDir(orderer2.id), 'data', 'etcdraft', 'snapshot', channel);
  assert.ok(existsSync(stuck), `${stuck} exists`);
  execFileSync('chattr', ['+i', stuck]);
  let failed;
  try {
    const posting = migrate('', { waitSeconds: 30 });
    // Held until the answer: orderer 0 does not start after its backup, the rollback begins.
    const taken = await portTakenInPhase(api, setup.network.id, orderer0.config.port);
    try {
      failed = await posting;
    } finally {
      taken.close();
    }
    const recorded = await rollbackIncomplete(api, setup.network.id, channel, failed, 'backup', [`the backup raft-to-bft of orderer ${orderer2.name} of organization Org1MSP could not be put back: EPERM: operation not permitted, rmdir 'data/etcdraft/snapshot/${channel}'`]);
    assert.match(failed.json.message, /POST \.\.\.\/consensus\/migrate takes the rollback up again/);
    // No orderer started on a chain only partly put back; orderer 2's ledger went with the part that was removed.
    for (const o of setup.orderers) assert.is((await api('GET', `/nodes/${o.id}`)).json.status, 'stopped', `orderer ${o.name} left stopped`);
    assert.ok(existsSync(stuck), 'the immutable directory is still there');
    assert.not.ok(existsSync(path.join(nodeDir(orderer2.id), 'data', 'chains')), "orderer 2's ledger was removed before the rollback stopped");

    // The fault cleared (the attribute removed, the port free): the dry run, then the POST takes the rollback up again.
    execFileSync('chattr', ['-i', stuck]);
    const again = await rollbackTakenUpAgain(api, { networkId: setup.network.id, channel, recorded, commits, hashes });
    assert.is(again.json.context.peers_not_rolled_back, undefined, again.text);
  } finally {
    // The host is never left with a file root cannot remove.
    if (existsSync(stuck)) execFileSync('chattr', ['-i', stuck]);
  }
  for (const o of setup.orderers) {
    assert.is((await api('GET', `/nodes/${o.id}`)).json.status, 'running', `orderer ${o.name} running`);
    const held = await ordererHolds(server().dataDir, o, channel);
    assert.ok(held, `orderer ${o.name} holds channel ${channel}`);
    assert.equal([held!.consensusRelation, held!.status], ['consenter', 'active'], `orderer ${o.name}: ${JSON.stringify(held)}`);
    assert.ok(held!.height >= h, `orderer ${o.name} at height ${held!.height}, the chain had ${h} blocks before the migration`);
  }
});

t.run();
