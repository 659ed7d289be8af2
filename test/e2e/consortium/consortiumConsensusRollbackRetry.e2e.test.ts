// A migration whose rollback did not complete, taken up again (issue 37 item 7; real Fabric 3.1:
// LNM_FABRIC_RELEASES or LNM_FABRIC_BIN with a 3.1 release, a counted skip without it). Four raft
// orderers and a peer on 3.1, channel V3_0. The fault: another program takes orderer 0's port when
// phase backup stops it and keeps it through the whole rollback, so orderer 0 cannot start on its
// restored data within the migration's patience (waitSeconds 40; default 180 s; 5 is a 400 naming
// the field): 409 MIGRATION_FAILED saying "rollback incomplete", naming the orderer and that it was
// given up after 40 s, the channel's state unknown, the record failed in phase
// rollback (GET .../consensus/migration). The port given back, a dry run says the rollback is taken
// up again (before: the channel held in maintenance refused every POST, with no way out in the
// service), and the POST does it: 409 MIGRATION_FAILED saying the backups were put back and the
// channel left maintenance on etcdraft; the channel config is etcdraft in STATE_NORMAL, the peer
// commits, the ledger keeps its hashes, and a dry run of a new migration is answered (the network
// migrates again).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../../helpers/requirements.ts';
import { blockHashes, channelCommits, fabric31, fabric31Server, fourOrdererRaftChannel, portTakenInPhase, rollbackIncomplete, rollbackTakenUpAgain } from './consortiumApi.ts';

const t = requires(suite('consensus migration: a rollback that did not complete, taken up again (real Fabric 3.1)'), 'fabric-releases', fabric31.skip);
const { api } = fabric31Server(t);
let setup: Awaited<ReturnType<typeof fourOrdererRaftChannel>>;
const channel = 'rrchannel';
const configPath = () => `/networks/${setup.network.id}/channels/${channel}/config`;
const migrate = (query = '', body: Record<string, unknown> = {}) => api('POST', `/networks/consortium/${setup.network.id}/consensus/migrate${query}`, { to: 'smartbft', ...body });
const commits = channelCommits(api, () => setup.network.id, 'Org1MSP', () => setup.peer.config.port, () => setup.height(), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000 });

t('an orderer that cannot start during the rollback: 409 "rollback incomplete"; the port given back, a new POST takes the rollback up again: etcdraft, out of maintenance, committing, migratable again', async () => {
  setup = await fourOrdererRaftChannel(api, 'rr', 'rrnet', channel, { fabricVersion: fabric31.version });
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
  const hashes = await blockHashes(api, setup.network.id, (await setup.height())!);
  const orderer0 = setup.orderers[0];

  const tooShort = await migrate('', { waitSeconds: 5 });
  assert.is(tooShort.status, 400, tooShort.text);
  assert.ok(JSON.stringify(tooShort.json.details).includes('waitSeconds'), tooShort.text);
  const posting = migrate('', { waitSeconds: 40 });
  // Held until the answer: the rollback's own retries of orderer 0's start (40 s) all meet it.
  const taken = await portTakenInPhase(api, setup.network.id, orderer0.config.port);
  let failed;
  try {
    failed = await posting;
  } finally {
    taken.close();
  }
  const recorded = await rollbackIncomplete(api, setup.network.id, channel, failed, 'backup', [orderer0.name, /given up after 40 s/]);

  // The port is free again: the dry run, then the POST takes the rollback up again.
  await rollbackTakenUpAgain(api, { networkId: setup.network.id, channel, recorded, commits, hashes });
});

t.run();
