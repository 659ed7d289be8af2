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

test('a proposal: signatures only of the organizations it asks for, from its peer; signed once on the signing side', () => {
  const sig = (mspId: string) => ({ mspId, signatureHeader: 'h', signature: 's' });
  const proposer = given({ type: 'ConnectPeer', role: 'inviter', ...peer }, { type: 'ShareProposal', proposalId: 'p1', peerId: 1, networkId: 5, channelName: 'ch', update: 'u', missingOrganizations: ['OrgB'], description: 'd', localSignatures: [sig('OrgA')], at });
  assert.throws(() => nodeSharing.decide({ type: 'ReceiveSignature', proposalId: 'p1', peerId: 1, signatures: [sig('OrgC')], at }, proposer), (e: any) => e.status === 400);
  assert.throws(() => nodeSharing.decide({ type: 'ReceiveSignature', proposalId: 'p1', peerId: 2, signatures: [sig('OrgB')], at }, proposer), (e: any) => e.status === 404);
  const [received] = nodeSharing.decide({ type: 'ReceiveSignature', proposalId: 'p1', peerId: 1, signatures: [sig('OrgB')], at }, proposer);
  assert.is(received.type, 'SignatureReceived');
  const signer = given({ type: 'ConnectPeer', role: 'acceptor', ...peer }, { type: 'ReceiveProposal', proposalId: 'p1', peerId: 1, channelName: 'ch', update: 'u', missingOrganizations: ['OrgB'], description: 'd', at }, { type: 'ShareSignature', proposalId: 'p1', signatures: [sig('OrgB')], at });
  assert.throws(() => nodeSharing.decide({ type: 'ShareSignature', proposalId: 'p1', signatures: [sig('OrgB')], at }, signer), (e: any) => e.status === 409);
});

test('a prepared signing proposal: one signature per organization (SIGNATURE_EXISTS), from here or from its peer once shared; none after submission', () => {
  const sig = (mspId: string) => ({ mspId, signatureHeader: `h-${mspId}`, signature: 's' });
  const prepare: NodeSharingCommand = {
    type: 'PrepareProposal', proposalId: 'p2', networkId: 5, channelName: 'ch', update: 'u', sequence: 3, record: { kind: 'anchorPeers', mspId: 'OrgC', anchorPeers: [] }, kinds: ['anchorPeers'], diff: [],
    avoidOrdererId: null, policies: ['/Channel/Application/OrgC/Admins'], requiredOrganizations: ['OrgA', 'OrgB', 'OrgC'], missingOrganizations: ['OrgB', 'OrgC'], description: 'd', at,
  };
  const add = (mspId: string, source: 'admin' | 'upload' = 'upload'): NodeSharingCommand => ({ type: 'AddProposalSignature', proposalId: 'p2', source, signature: sig(mspId), at });
  const s = given({ type: 'ConnectPeer', role: 'inviter', ...peer }, prepare, add('OrgA', 'admin'));
  assert.equal(s.proposals!.p2.sharingPeerId, null);
  assert.equal(s.proposals!.p2.prepared!.sequence, 3);
  assert.equal(nodeSharing.decide(add('OrgC'), s).map((e) => [e.type, (e.data as any).mspId, (e.data as any).source]), [['ConfigProposalSigned', 'OrgC', 'upload']]);
  assert.throws(() => nodeSharing.decide(add('OrgA'), s), (e: any) => e.status === 409 && e.code === 'SIGNATURE_EXISTS');
  // Sent to a peer afterwards: the same proposal, its signatures kept; the peer cannot sign twice for an organization.
  const shared = given({ type: 'ConnectPeer', role: 'inviter', ...peer }, prepare, add('OrgA', 'admin'), { type: 'ShareProposal', proposalId: 'p2', peerId: 1, networkId: 5, channelName: 'ch', update: 'u', missingOrganizations: ['OrgB', 'OrgC'], description: 'd', localSignatures: [], at });
  assert.equal([shared.proposals!.p2.sharingPeerId, shared.proposals!.p2.localSignatures.map((x) => x.mspId)], [1, ['OrgA']]);
  const withB = given({ type: 'ConnectPeer', role: 'inviter', ...peer }, prepare, { type: 'ShareProposal', proposalId: 'p2', peerId: 1, networkId: 5, channelName: 'ch', update: 'u', missingOrganizations: ['OrgB', 'OrgC'], description: 'd', localSignatures: [], at }, { type: 'ReceiveSignature', proposalId: 'p2', peerId: 1, signatures: [sig('OrgB')], at });
  assert.throws(() => nodeSharing.decide({ type: 'ReceiveSignature', proposalId: 'p2', peerId: 1, signatures: [sig('OrgB')], at }, withB), (e: any) => e.code === 'SIGNATURE_EXISTS');
  assert.throws(() => nodeSharing.decide(add('OrgB'), withB), (e: any) => e.code === 'SIGNATURE_EXISTS');
  const done = given({ type: 'ConnectPeer', role: 'inviter', ...peer }, prepare, { type: 'RecordProposalSubmitted', proposalId: 'p2', sequence: 4, blockNumber: 2, at });
  assert.throws(() => nodeSharing.decide(add('OrgC'), done), (e: any) => e.status === 409);
  assert.throws(() => nodeSharing.decide(prepare, s), (e: any) => e.status === 409, 'an id is prepared once');
});

test('a prepared proposal keeps when each signature came and how: signed here, sent back by the peer, uploaded', () => {
  const sig = (mspId: string) => ({ mspId, signatureHeader: `h-${mspId}`, signature: 's' });
  const prepare: NodeSharingCommand = {
    type: 'PrepareProposal', proposalId: 'p3', networkId: 5, channelName: 'ch', update: 'u', sequence: 3, record: { kind: 'policies' }, kinds: ['policies'], diff: [],
    avoidOrdererId: null, policies: ['/Channel/Application/Admins'], requiredOrganizations: ['OrgA', 'OrgB', 'OrgC'], missingOrganizations: ['OrgB', 'OrgC'], description: 'd', at,
  };
  const s = given(
    { type: 'ConnectPeer', role: 'inviter', ...peer },
    prepare,
    { type: 'AddProposalSignature', proposalId: 'p3', source: 'admin', signature: sig('OrgA'), at: '2026-01-01T00:00:01.000Z' },
    { type: 'ShareProposal', proposalId: 'p3', peerId: 1, networkId: 5, channelName: 'ch', update: 'u', missingOrganizations: ['OrgB', 'OrgC'], description: 'd', localSignatures: [], at },
    { type: 'ReceiveSignature', proposalId: 'p3', peerId: 1, signatures: [sig('OrgB')], at: '2026-01-01T00:00:02.000Z' },
    { type: 'AddProposalSignature', proposalId: 'p3', source: 'upload', signature: sig('OrgC'), at: '2026-01-01T00:00:03.000Z' },
  );
  assert.equal(s.proposals!.p3.signatureLog, [
    { mspId: 'OrgA', source: 'admin', at: '2026-01-01T00:00:01.000Z' },
    { mspId: 'OrgB', source: 'peer', at: '2026-01-01T00:00:02.000Z' },
    { mspId: 'OrgC', source: 'upload', at: '2026-01-01T00:00:03.000Z' },
  ]);
});

test('a chaincode share: once per chaincode and peer on the sharing side (sharing.chaincode.shared), refused for an unknown (404) or revoked (403) peer', () => {
  const share: NodeSharingCommand = { type: 'RecordChaincodeShared', peerId: 1, chaincodeId: 7, channelName: 'ch', name: 'cc', version: '1.0', sequence: 1, at };
  const s = given({ type: 'ConnectPeer', role: 'inviter', ...peer });
  const [shared] = nodeSharing.decide(share, s);
  assert.equal(shared, { type: 'ChaincodeShared', data: { sharingPeerId: 1, peerId: 'b', resourceType: 'chaincode', resourceId: '7', channelName: 'ch', name: 'cc', version: '1.0', sequence: 1, at } });
  assert.equal(nodeSharing.decide(share, given({ type: 'ConnectPeer', role: 'inviter', ...peer }, share)), []);
  assert.is(nodeSharing.decide({ ...share, chaincodeId: 8 } as NodeSharingCommand, given({ type: 'ConnectPeer', role: 'inviter', ...peer }, share)).length, 1, 'another chaincode is news');
  const receive: NodeSharingCommand = { type: 'RecordChaincodeReceived', peerId: 1, peerChaincodeId: 7, localChaincodeId: 3, channelName: 'ch', name: 'cc', version: '1.0', sequence: 1, at };
  const [received] = nodeSharing.decide(receive, s);
  assert.is(received.type, 'SharedChaincodeReceived');
  assert.is((received.data as any).resourceId, '7');
  assert.is((received.data as any).localChaincodeId, 3);
  assert.throws(() => nodeSharing.decide({ ...receive, peerId: 9 } as NodeSharingCommand, s), (e: any) => e.status === 404);
  assert.throws(() => nodeSharing.decide(share, given({ type: 'ConnectPeer', role: 'inviter', ...peer }, { type: 'RevokePeer', peerId: 1, at })), (e: any) => e.status === 403);
});

test('a submitted BFT consenter removal records the removed orderer\'s rejoin on the proposal, once; not before it is submitted', () => {
  const prepare: NodeSharingCommand = {
    type: 'PrepareProposal', proposalId: 'p4', networkId: 5, channelName: 'ch', update: 'u', sequence: 3, record: { kind: 'removeConsenter', nodeId: 7 }, kinds: ['removeConsenter'], diff: [],
    avoidOrdererId: 7, policies: ['/Channel/Orderer/Admins'], requiredOrganizations: ['OrgA', 'OrgB'], missingOrganizations: ['OrgB'], description: 'd', at,
  };
  const rejoin: NodeSharingCommand = { type: 'RecordProposalRejoin', proposalId: 'p4', nodeId: 7, steps: ['removed', 'joined again'], status: 'onboarding', consensusRelation: 'follower', height: 9, at: later };
  assert.throws(() => nodeSharing.decide(rejoin, given(prepare)), (e: any) => e.status === 409, 'not submitted yet');
  assert.throws(() => nodeSharing.decide({ ...rejoin, proposalId: 'nope' } as NodeSharingCommand, given(prepare)), (e: any) => e.status === 404);
  const done = given(prepare, { type: 'RecordProposalSubmitted', proposalId: 'p4', sequence: 4, blockNumber: 2, at });
  const events = nodeSharing.decide(rejoin, done);
  assert.equal(events.map((e) => [e.type, (e.data as any).networkId, (e.data as any).channelName, (e.data as any).nodeId]), [['ConfigProposalRejoined', 5, 'ch', 7]]);
  const s = given(prepare, { type: 'RecordProposalSubmitted', proposalId: 'p4', sequence: 4, blockNumber: 2, at }, rejoin);
  assert.equal(s.proposals!.p4.rejoined, { nodeId: 7, steps: ['removed', 'joined again'], status: 'onboarding', consensusRelation: 'follower', height: 9, at: later });
  assert.equal(s.proposals!.p4.status, 'submitted');
  assert.equal(nodeSharing.decide(rejoin, s), [], 'recorded once');
});

test.run();
