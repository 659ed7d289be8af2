// The consensus migration page's words for a failed migration's peers (web/src/pages/networks/
// migrationPeers.ts, shown by ConsensusMigration.tsx): the 409 MIGRATION_FAILED context's
// peers_not_rolled_back (application/consortium/consortiumConsensusMigrate.ts) named with what to do,
// the peers rolled back read from the recorded steps.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { migrationChannels, migrationChannelText, peerNotRolledBackAdvice, peersNotRolledBack, peersRolledBack } from '../../web/src/pages/networks/migrationPeers.ts';

const context = {
  phase: 'backup',
  steps: [
    'restored: backups put back',
    'rollback: peer peer0 rolled back on channel ch1 to block 4, the restored chain\'s height 5 (it was at 7: stopped, peer node rollback, started)',
    'rollback: peer peer1 not rolled back on channel ch1 to the restored chain\'s height 5: it runs on the docker engine',
    'rollback: peer peer2 at height 5 on channel ch1, within the restored chain\'s height 5: nothing to roll back',
  ],
  peers_not_rolled_back: [{ node_id: 12, name: 'peer1', channel: 'ch1', reason: 'it runs on the docker engine' }],
};

test('the peers not rolled back, as the context names them; none without the field', () => {
  assert.equal(peersNotRolledBack(context), [{ node_id: 12, name: 'peer1', channel: 'ch1', reason: 'it runs on the docker engine' }]);
  assert.equal(peersNotRolledBack({ phase: 'backup', steps: [] }), []);
  assert.equal(peersNotRolledBack(undefined), []);
});

test('the peers rolled back, from the steps (not those left alone or not rolled back)', () => {
  assert.equal(peersRolledBack(context.steps), [context.steps[1]]);
});

test('what the operator does: peer node rollback on the channel, or leave and join again', () => {
  const text = peerNotRolledBackAdvice(peersNotRolledBack(context)[0]);
  assert.match(text, 'Peer peer1');
  assert.match(text, 'it runs on the docker engine');
  assert.match(text, '`peer node rollback -c ch1 -b <block>`');
  assert.match(text, 'leave channel ch1 and join it again');
});
test('GET .../consensus/migration after a reload carries the same fields as the 409: the peers not rolled back and the channels read from it', () => {
  const recorded = {
    migration_id: 'm1', network_ids: [3, 4], orderer_ids: [1, 2, 5, 6], status: 'failed', phase: 'normal', steps: [], started_at: '', ended_at: '',
    channels: [
      { network_id: 3, channel_name: 'ch1', consensus: 'smartbft', state: 'normal' },
      { network_id: 4, channel_name: 'ch2', consensus: 'smartbft', state: 'maintenance' },
    ],
    peers_not_rolled_back: [{ node_id: 12, name: 'peer1', channel: 'ch1', reason: 'it runs on the docker engine' }],
  };
  assert.equal(peersNotRolledBack(recorded), [{ node_id: 12, name: 'peer1', channel: 'ch1', reason: 'it runs on the docker engine' }]);
  assert.equal(migrationChannels(recorded), recorded.channels);
  assert.equal(migrationChannels({ phase: 'backup', steps: [] }), []);
});

test('each channel in words: ordering on SmartBFT, in maintenance on SmartBFT (resume), back on etcdraft, unknown', () => {
  const [bft, held] = migrationChannels({ channels: [{ network_id: 3, channel_name: 'ch1', consensus: 'smartbft', state: 'normal' }, { network_id: 4, channel_name: 'ch2', consensus: 'smartbft', state: 'maintenance' }] });
  assert.match(migrationChannelText(bft), 'Channel ch1: runs SmartBFT and orders');
  assert.match(migrationChannelText(held), 'Channel ch2: switched to SmartBFT but still in maintenance');
  assert.match(migrationChannelText(held), 'resuming the migration');
  assert.match(migrationChannelText({ network_id: 3, channel_name: 'ch1', consensus: 'etcdraft', state: 'normal' }), 'back on etcdraft');
  assert.match(migrationChannelText({ network_id: 3, channel_name: 'ch1', consensus: 'unknown', state: 'unknown' }), 'not known');
});
test.run();
