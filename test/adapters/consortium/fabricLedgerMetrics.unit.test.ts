// A Fabric node's ledgers from its /metrics text (the lines Fabric 2.5 writes): per channel the
// height and the others it knows there; for the node the highest, 0 before it joins a channel.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ledgerReadingsOf } from '../../../adapters/consortium/fabricLedgerMetrics.ts';

const peerMetrics = `# HELP ledger_blockchain_height Height of the chain in blocks.
# TYPE ledger_blockchain_height gauge
ledger_blockchain_height{channel="mychannel"} 7
ledger_blockchain_height{channel="other"} 3
# HELP gossip_membership_total_peers_known Total known peers
# TYPE gossip_membership_total_peers_known gauge
gossip_membership_total_peers_known{channel="mychannel"} 3
gossip_membership_total_peers_known{channel="other"} 1
consensus_etcdraft_active_nodes{channel="mychannel"} 9
ledger_blockstorage_commit_time_count{channel="mychannel"} 7
`;

test('a peer: heights per channel, gossip peers known; the node is its highest channel', () => {
  assert.equal(ledgerReadingsOf(peerMetrics, 'peer'), {
    blockHeight: 7,
    peerCount: 3,
    channels: [
      { channel: 'mychannel', blockHeight: 7, peerCount: 3 },
      { channel: 'other', blockHeight: 3, peerCount: 1 },
    ],
  });
});

test('an orderer: its ledger height, and the other raft consenters active (not itself); gossip lines are not its', () => {
  const text = 'ledger_blockchain_height{channel="sys"} 12\nconsensus_etcdraft_active_nodes{channel="sys"} 3\ngossip_membership_total_peers_known{channel="sys"} 5\n';
  assert.equal(ledgerReadingsOf(text, 'orderer'), { blockHeight: 12, peerCount: 2, channels: [{ channel: 'sys', blockHeight: 12, peerCount: 2 }] });
});

test('a BFT orderer says whether it is the channel\'s SmartBFT leader (consensus_BFT_is_leader); a raft one says nothing of it', () => {
  const text = 'ledger_blockchain_height{channel="bft"} 9\nconsensus_BFT_is_leader{channel="bft"} 1\nconsensus_BFT_is_leader{channel="other"} 0\nledger_blockchain_height{channel="other"} 4\n';
  assert.equal(ledgerReadingsOf(text, 'orderer').channels, [
    { channel: 'bft', blockHeight: 9, peerCount: null, bftLeader: true },
    { channel: 'other', blockHeight: 4, peerCount: null, bftLeader: false },
  ]);
});

test('a node on no channel is height 0 with 0 peers; noise and malformed lines are ignored', () => {
  assert.equal(ledgerReadingsOf('go_goroutines 42\nledger_blockchain_height{channel="x"} NaN\nledger_blockchain_height 5\n', 'peer'), { blockHeight: 0, peerCount: 0, channels: [] });
  assert.equal(ledgerReadingsOf('', 'orderer'), { blockHeight: 0, peerCount: 0, channels: [] });
});

test.run();
