// A migration whose rollback fails in putting a backup back (not in an orderer's start), taken up
// again once the backup is back (issue 37 item 7; real Fabric 3.1: LNM_FABRIC_RELEASES or
// LNM_FABRIC_BIN with a 3.1 release, a counted skip without it). Four raft orderers and a peer on
// 3.1, channel V3_0. Two real faults: once the migration reaches phase restart (the channel already
// switched to BFT in maintenance, the peer holding the switch block), orderer 2's backup is moved
// away (as an operator cleaning up the disk would) and orderer 0's port is taken by another
// program, so orderer 0 does not start and the migration rolls back; the rollback puts orderer 0's
// and 1's backups back and then finds none for orderer 2: 409 MIGRATION_FAILED saying "rollback
// incomplete", naming orderer 2 and that its backup is missing, the channel's state unknown, no
// orderer started on a chain half put back, the record failed in phase rollback. The backup moved
// back and the port given back, a dry run says the rollback is taken up again, and the POST does
// it: every backup put back, the peer rolled back from the switch block to the restored chain, the
// channel etcdraft in STATE_NORMAL, committing, its blocks kept, and a new migration's dry run
// answered.
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../../helpers/requirements.ts';
import { blockHashes, channelCommits, fabric31, fabric31Server, fourOrdererRaftChannel, occupyPort, rollbackIncomplete, rollbackTakenUpAgain, until } from './consortiumApi.ts';

const t = requires(suite('consensus migration: a rollback that could not put a backup back, taken up again (real Fabric 3.1)'), 'fabric-releases', fabric31.skip);
const { api, server } = fabric31Server(t);
let setup: Awaited<ReturnType<typeof fourOrdererRaftChannel>>;
const channel = 'rschannel';
const configPath = () => `/networks/${setup.network.id}/channels/${channel}/config`;
const migrate = (query = '', body: Record<string, unknown> = {}) => api('POST', `/networks/consortium/${setup.network.id}/consensus/migrate${query}`, { to: 'smartbft', ...body });
const progress = () => api('GET', `/networks/consortium/${setup.network.id}/consensus/migration`);
const commits = channelCommits(api, () => setup.network.id, 'Org1MSP', () => setup.peer.config.port, () => setup.height(), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000 });
const backupOf = (nodeId: number) => path.join(server().dataDir, 'nodes', `node-${nodeId}`, 'data.backup-raft-to-bft');

t('a backup missing when the rollback puts it back: 409 "rollback incomplete" naming the orderer; the backup back, a new POST takes the rollback up again: etcdraft, out of maintenance, committing', async () => {
  setup = await fourOrdererRaftChannel(api, 'rs', 'rsnet', channel, { fabricVersion: fabric31.version });
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
  const hashes = await blockHashes(api, setup.network.id, (await setup.height())!);
  const [orderer0, , orderer2] = setup.orderers;
  const moved = `${backupOf(orderer2.id)}.moved`;

  const posting = migrate('', { waitSeconds: 30 });
  await until('the migration in phase restart', async () => {
    const p = await progress();
    return p.status === 200 && p.json.status === 'running' && p.json.phase === 'restart' ? true : null;
  }, 600_000, 100);
  // Phase restart: the backups were taken in phase backup and are only read by a rollback.
  assert.ok(existsSync(backupOf(orderer2.id)), 'orderer 2 was backed up');
  await rename(backupOf(orderer2.id), moved);
  const taken = await occupyPort(orderer0.config.port);
  let failed;
  try {
    failed = await posting;
  } finally {
    taken.close();
  }
  const recorded = await rollbackIncomplete(api, setup.network.id, channel, failed, 'restart', [`orderer ${orderer2.name} `, /has no backup raft-to-bft to restore/]);
  assert.ok((failed.json.context.steps as string[]).some((s) => s.startsWith('switch: channel ')), failed.text);
  // No orderer started on a chain only partly put back.
  for (const o of setup.orderers) assert.is((await api('GET', `/nodes/${o.id}`)).json.status, 'stopped', `orderer ${o.name} left stopped`);

  // The fault cleared (the backup where it was, the port free): the dry run, then the POST takes the rollback up again.
  await rename(moved, backupOf(orderer2.id));
  const again = await rollbackTakenUpAgain(api, { networkId: setup.network.id, channel, recorded, commits, hashes });
  // The peer had pulled the switch block: rolled back to the restored chain, none left behind.
  assert.ok((again.json.context.steps as string[]).some((s) => s.startsWith(`rollback: peer ${setup.peer.name} `)), again.text);
  assert.is(again.json.context.peers_not_rolled_back, undefined, again.text);
  for (const o of setup.orderers) assert.is((await api('GET', `/nodes/${o.id}`)).json.status, 'running', `orderer ${o.name} running`);
});

t.run();
