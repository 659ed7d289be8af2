import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeSharing, type NodeSharingCommand, type NodeSharingEvent, type NodeSharingState } from '../../../domain/sharing/nodeSharing.ts';

const at = '2026-01-01T00:00:00.000Z';
const later = '2026-01-03T00:00:00.000Z';
const given = (...commands: NodeSharingCommand[]): NodeSharingState =>
  commands.reduce((s, c) => nodeSharing.decide(c, s).reduce((x, e: NodeSharingEvent) => nodeSharing.evolve(x, e), s), nodeSharing.initialState());
const issue: NodeSharingCommand = { type: 'IssueInvitation', invitationId: 'inv-1', bidirectional: true, expiresAt: '2026-01-02T00:00:00.000Z', at };
const peer = { peerId: 1, instanceId: 'b', url: 'https://127.0.0.1:1', tlsCertificate: 'c', tlsFingerprint: 'f', publicJwk: {}, invitationId: 'inv-1', sharesWithPeer: true, peerShares: true, at };

test('an invitation is consumed once: the second use is INVITATION_USED, an expired one INVITATION_EXPIRED, an unknown one 401', () => {
  const s = given(issue, { type: 'ConsumeInvitation', invitationId: 'inv-1', peerInstanceId: 'b', at });
  assert.throws(() => nodeSharing.decide({ type: 'ConsumeInvitation', invitationId: 'inv-1', peerInstanceId: 'c', at }, s), (e: any) => e.code === 'INVITATION_USED');
  assert.throws(() => nodeSharing.decide({ type: 'ConsumeInvitation', invitationId: 'inv-1', peerInstanceId: 'b', at: later }, given(issue)), (e: any) => e.code === 'INVITATION_EXPIRED');
  assert.throws(() => nodeSharing.decide({ type: 'ConsumeInvitation', invitationId: 'nope', peerInstanceId: 'b', at }, given(issue)), (e: any) => e.status === 401);
});

test('an accepted invitation cannot be accepted again, and an active peer is not connected twice', () => {
  const s = given({ type: 'ConnectPeer', role: 'acceptor', ...peer });
  assert.throws(() => nodeSharing.decide({ type: 'ConnectPeer', role: 'acceptor', ...peer, peerId: 2 }, s), (e: any) => e.code === 'INVITATION_USED');
  assert.throws(() => nodeSharing.decide({ type: 'ConnectPeer', role: 'inviter', ...peer, invitationId: 'inv-2', peerId: 2 }, s), (e: any) => e.code === 'ALREADY_PEERS');
});

test('a revoked peer gets no more node metadata recorded (403); revoking twice changes nothing', () => {
  const s = given({ type: 'ConnectPeer', role: 'inviter', ...peer }, { type: 'RevokePeer', peerId: 1, at });
  assert.throws(() => nodeSharing.decide({ type: 'RecordPeerNodes', peerId: 1, nodes: [], at }, s), (e: any) => e.status === 403);
  assert.equal(nodeSharing.decide({ type: 'RevokePeer', peerId: 1, at }, s), []);
  assert.throws(() => nodeSharing.decide({ type: 'RecordPeerNodes', peerId: 9, nodes: [], at }, s), (e: any) => e.status === 404);
});

test.run();
