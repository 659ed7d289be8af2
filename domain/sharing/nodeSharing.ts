// Node sharing between instances as one directory aggregate (stream node-sharing): this
// instance's signing identity (a P-256 key held by its key provider), the invitations it
// issued (single use: an invitation is consumed once), the invitations it accepted (never
// twice), and its peer instances with the node metadata last received from each. Only
// metadata is kept here: hostnames, ports, public certificates, MSP ids.
import { ConflictError, ForbiddenError, NotFoundError, UnauthenticatedError, ValidationError } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';
import type { DetachedConfigSignature } from '../consortium/consortiumChannelPorts.ts';

export const NODE_SHARING_STREAM = 'node-sharing';

/** A node as another instance may see it. Every field is public by construction. */
export interface SharedNode {
  id: number;
  name: string;
  platform: string;
  nodeType: string;
  role: string;
  status: string;
  mspId: string | null;
  host: string;
  ports: Record<string, number>;
  endpoint: string | null;
  tlsCertificate: string | null;
  identityCertificate: string | null;
  validatorAddress: string | null;
}

/** An organization's public MSP (CA certificates and admin certificate), so a peer can add it to a channel. */
export interface SharedOrganization {
  mspId: string;
  signCaCertPem: string;
  tlsCaCertPem: string;
  adminCertPem: string;
}

/** A channel this instance runs that the peer's organization was added to: what the peer needs to join it. */
export interface SharedNetwork {
  networkId: number;
  name: string;
  channelName: string;
  /** Block 0 (public: configuration and certificates only), base64; peers join with it. */
  genesisBlock: string;
  ordererEndpoints: string[];
  organizations: string[];
  ordererOrganizations: string[];
}

export interface PeerMetadata {
  nodes: SharedNode[];
  organizations?: SharedOrganization[];
  networks?: SharedNetwork[];
}

/** A peer instance: where it listens, the certificate pinned for it, the public key its requests are signed with. */
export interface PeerInstance {
  instanceId: string;
  url: string;
  tlsCertificate: string;
  tlsFingerprint: string;
  publicJwk: Record<string, string>;
}

export interface PeerConnectedData extends PeerInstance {
  peerId: number;
  /** inviter: this instance issued the invitation; acceptor: it accepted one. */
  role: 'inviter' | 'acceptor';
  invitationId: string;
  /** Whether this instance shows its nodes to the peer, and the peer its nodes to this one. */
  sharesWithPeer: boolean;
  peerShares: boolean;
  at: string;
}

export type NodeSharingEvent =
  | DomainEvent<'SharingIdentityCreated', { keyId: number; at: string }>
  | DomainEvent<'InvitationIssued', { invitationId: string; bidirectional: boolean; expiresAt: string; at: string }>
  | DomainEvent<'InvitationConsumed', { invitationId: string; peerInstanceId: string; at: string }>
  | DomainEvent<'PeerConnected', PeerConnectedData>
  | DomainEvent<'PeerNodesSynced', PeerMetadata & { peerId: number; instanceId: string; at: string }>
  | DomainEvent<'PeerRevoked', { peerId: number; instanceId: string; at: string }>
  // sharing.network.shared / .received: peerId is the peer's instance id (the webhook catalog's string).
  | DomainEvent<'NetworkShared', NetworkShareData>
  | DomainEvent<'SharedNetworkReceived', NetworkShareData & { localNetworkId: number }>
  | DomainEvent<'ProposalShared', ProposalData & { networkId: number; localSignatures: DetachedConfigSignature[] }>
  | DomainEvent<'ProposalReceived', ProposalData>
  | DomainEvent<'SignatureShared', SignatureData>
  | DomainEvent<'SignatureReceived', SignatureData>
  | DomainEvent<'ProposalSubmitted', { proposalId: string; networkId: number; sequence: number; blockNumber: number; at: string }>
  // A submitted consenter removal on a smartbft channel: the removed orderer rejoined (or not) as a follower.
  | DomainEvent<'ConfigProposalRejoined', { proposalId: string; networkId: number; channelName: string } & ProposalRejoin>
  // A signing proposal prepared on this instance (any change type): what it changes, against which
  // config sequence, whose signatures count; then one event per organization's signature added.
  | DomainEvent<'ConfigProposalPrepared', ConfigProposalPreparedData>
  | DomainEvent<'ConfigProposalSigned', { proposalId: string; channelName: string; mspId: string; source: 'admin' | 'upload'; signature: DetachedConfigSignature; at: string }>
  // sharing.chaincode.shared / .received: a chaincode definition (and its source, which is not secret) sent to a peer.
  | DomainEvent<'ChaincodeShared', ChaincodeShareData>
  | DomainEvent<'SharedChaincodeReceived', ChaincodeShareData & { localChaincodeId: number }>;

/** A chaincode definition shared with a peer: resourceId is the chaincode's id on the sharing instance. */
export interface ChaincodeShareData {
  sharingPeerId: number;
  peerId: string;
  resourceType: 'chaincode';
  resourceId: string;
  channelName: string;
  name: string;
  version: string;
  sequence: number;
  at: string;
}

/** A channel config update travelling between instances for signatures (sharing.proposal.*, sharing.signature.*). */
export interface ProposalData {
  proposalId: string;
  sharingPeerId: number;
  peerId: string;
  resourceType: 'proposal';
  resourceId: string;
  channelName: string;
  /** The ConfigUpdate every signer signs, base64. */
  update: string;
  missingOrganizations: string[];
  description: string;
  at: string;
}

/** A config update prepared here for signatures (kept until submitted; stale once the channel's config sequence moved on). */
export interface ConfigProposalPreparedData {
  proposalId: string;
  networkId: number;
  channelName: string;
  /** The ConfigUpdate every signer signs, base64. */
  update: string;
  /** The channel's config sequence the update was computed against. */
  sequence: number;
  /** What the network's record keeps of the change once submitted. */
  record: Record<string, unknown>;
  /** The kinds of change (policies, addOrganization, anchorPeers, addConsenter, ...). */
  kinds: string[];
  diff: unknown[];
  avoidOrdererId: number | null;
  policies: string[];
  requiredOrganizations: string[];
  missingOrganizations: string[];
  description: string;
  at: string;
}

export interface SignatureData {
  proposalId: string;
  sharingPeerId: number;
  peerId: string;
  resourceType: 'signature';
  resourceId: string;
  signatures: DetachedConfigSignature[];
  at: string;
}

/** What became of the orderer a submitted BFT consenter-removal proposal removed (consortiumConsenters.ts rejoinRemovedConsenter). */
export interface ProposalRejoin {
  nodeId: number;
  /** What was done, in order. */
  steps: string[];
  /** What the orderer's channel participation API said after (follower when rejoined). */
  status: string;
  consensusRelation: string;
  height: number;
  at: string;
}

export interface ProposalState {
  role: 'proposer' | 'signer';
  /** null: a proposal of this instance not (yet) sent to a peer. */
  sharingPeerId: number | null;
  networkId: number | null;
  channelName: string;
  update: string;
  missingOrganizations: string[];
  description: string;
  localSignatures: DetachedConfigSignature[];
  received: DetachedConfigSignature[];
  /** When each collected signature came and how: signed here by an admin this instance holds, uploaded (detached), or sent back by the sharing peer. */
  signatureLog?: Array<{ mspId: string; source: 'admin' | 'upload' | 'peer'; at: string }>;
  status: 'awaiting-signatures' | 'signed' | 'submitted';
  at: string;
  /** A submitted BFT consenter removal: the removed orderer's rejoin as a follower. */
  rejoined?: ProposalRejoin;
  /** Proposals prepared as ConfigProposalPrepared (every change type); absent on older ones. */
  prepared?: Omit<ConfigProposalPreparedData, 'proposalId' | 'update' | 'description' | 'at' | 'channelName'>;
}

export interface NetworkShareData {
  sharingPeerId: number;
  peerId: string;
  resourceType: 'network';
  resourceId: string;
  channelName: string;
  at: string;
}

export type NodeSharingCommand =
  | { type: 'CreateSharingIdentity'; keyId: number; at: string }
  | { type: 'IssueInvitation'; invitationId: string; bidirectional: boolean; expiresAt: string; at: string }
  | { type: 'ConsumeInvitation'; invitationId: string; peerInstanceId: string; at: string }
  | ({ type: 'ConnectPeer' } & PeerConnectedData)
  | ({ type: 'RecordPeerNodes'; peerId: number; at: string } & PeerMetadata)
  | { type: 'RevokePeer'; peerId: number; at: string }
  | { type: 'RecordNetworksShared'; peerId: number; networks: Array<{ networkId: number; channelName: string }>; at: string }
  | { type: 'RecordSharedNetworkReceived'; peerId: number; peerNetworkId: number; localNetworkId: number; channelName: string; at: string }
  | ({ type: 'PrepareProposal' } & ConfigProposalPreparedData)
  | { type: 'AddProposalSignature'; proposalId: string; source: 'admin' | 'upload'; signature: DetachedConfigSignature; at: string }
  | { type: 'ShareProposal'; proposalId: string; peerId: number; networkId: number; channelName: string; update: string; missingOrganizations: string[]; description: string; localSignatures: DetachedConfigSignature[]; at: string }
  | { type: 'ReceiveProposal'; proposalId: string; peerId: number; channelName: string; update: string; missingOrganizations: string[]; description: string; at: string }
  | { type: 'ShareSignature'; proposalId: string; signatures: DetachedConfigSignature[]; at: string }
  | { type: 'ReceiveSignature'; proposalId: string; peerId: number; signatures: DetachedConfigSignature[]; at: string }
  | { type: 'RecordProposalSubmitted'; proposalId: string; sequence: number; blockNumber: number; at: string }
  | ({ type: 'RecordProposalRejoin'; proposalId: string } & ProposalRejoin)
  | { type: 'RecordChaincodeShared'; peerId: number; chaincodeId: number; channelName: string; name: string; version: string; sequence: number; at: string }
  | { type: 'RecordChaincodeReceived'; peerId: number; peerChaincodeId: number; localChaincodeId: number; channelName: string; name: string; version: string; sequence: number; at: string };

export interface NodeSharingState {
  identityKeyId: number | null;
  issued: Record<string, { bidirectional: boolean; expiresAt: string; consumedBy: string | null }>;
  accepted: string[];
  peers: Record<number, { instanceId: string; revoked: boolean; sharedNetworks?: number[]; sharedChaincodes?: number[] }>;
  proposals?: Record<string, ProposalState>;
}

const peerByInstance = (s: NodeSharingState, instanceId: string) => Object.entries(s.peers).find(([, p]) => p.instanceId === instanceId);

export const nodeSharing: Decider<NodeSharingState, NodeSharingCommand, NodeSharingEvent> = {
  initialState: () => ({ identityKeyId: null, issued: {}, accepted: [], peers: {} }),
  evolve(s, e) {
    switch (e.type) {
      case 'SharingIdentityCreated':
        return { ...s, identityKeyId: e.data.keyId };
      case 'InvitationIssued':
        return { ...s, issued: { ...s.issued, [e.data.invitationId]: { bidirectional: e.data.bidirectional, expiresAt: e.data.expiresAt, consumedBy: null } } };
      case 'InvitationConsumed':
        return { ...s, issued: { ...s.issued, [e.data.invitationId]: { ...s.issued[e.data.invitationId], consumedBy: e.data.peerInstanceId } } };
      case 'PeerConnected':
        return { ...s, accepted: e.data.role === 'acceptor' ? [...s.accepted, e.data.invitationId] : s.accepted, peers: { ...s.peers, [e.data.peerId]: { instanceId: e.data.instanceId, revoked: false } } };
      case 'PeerNodesSynced':
        return s;
      case 'PeerRevoked':
        return { ...s, peers: { ...s.peers, [e.data.peerId]: { ...s.peers[e.data.peerId], revoked: true } } };
      case 'NetworkShared': {
        const p = s.peers[e.data.sharingPeerId];
        return { ...s, peers: { ...s.peers, [e.data.sharingPeerId]: { ...p, sharedNetworks: [...(p.sharedNetworks ?? []), Number(e.data.resourceId)] } } };
      }
      case 'ChaincodeShared': {
        const p = s.peers[e.data.sharingPeerId];
        return { ...s, peers: { ...s.peers, [e.data.sharingPeerId]: { ...p, sharedChaincodes: [...(p.sharedChaincodes ?? []), Number(e.data.resourceId)] } } };
      }
      case 'SharedNetworkReceived':
      case 'SharedChaincodeReceived':
        return s;
      case 'ConfigProposalPrepared': {
        const { proposalId, update, description, at, channelName, ...prepared } = e.data;
        const p: ProposalState = {
          role: 'proposer', sharingPeerId: null, networkId: e.data.networkId, channelName, update, missingOrganizations: e.data.missingOrganizations, description,
          localSignatures: [], received: [], status: 'awaiting-signatures', at, prepared,
        };
        return { ...s, proposals: { ...s.proposals, [proposalId]: p } };
      }
      case 'ConfigProposalSigned': {
        const p = s.proposals![e.data.proposalId];
        return { ...s, proposals: { ...s.proposals, [e.data.proposalId]: { ...p, localSignatures: [...p.localSignatures, e.data.signature], signatureLog: [...(p.signatureLog ?? []), { mspId: e.data.mspId, source: e.data.source, at: e.data.at }] } } };
      }
      case 'ProposalShared':
      case 'ProposalReceived': {
        const d = e.data;
        const known = s.proposals?.[d.proposalId];
        // A prepared proposal sent to a peer: the same proposal, now waiting for that peer too.
        if (known && e.type === 'ProposalShared') return { ...s, proposals: { ...s.proposals, [d.proposalId]: { ...known, sharingPeerId: d.sharingPeerId, missingOrganizations: d.missingOrganizations } } };
        const p: ProposalState = {
          role: e.type === 'ProposalShared' ? 'proposer' : 'signer', sharingPeerId: d.sharingPeerId, networkId: 'networkId' in d ? d.networkId : null, channelName: d.channelName,
          update: d.update, missingOrganizations: d.missingOrganizations, description: d.description, localSignatures: 'localSignatures' in d ? d.localSignatures : [], received: [], status: 'awaiting-signatures', at: d.at,
        };
        return { ...s, proposals: { ...s.proposals, [d.proposalId]: p } };
      }
      case 'SignatureShared': {
        const p = s.proposals![e.data.proposalId];
        return { ...s, proposals: { ...s.proposals, [e.data.proposalId]: { ...p, localSignatures: e.data.signatures, status: 'signed' } } };
      }
      case 'SignatureReceived': {
        const p = s.proposals![e.data.proposalId];
        return { ...s, proposals: { ...s.proposals, [e.data.proposalId]: { ...p, received: [...p.received, ...e.data.signatures], signatureLog: [...(p.signatureLog ?? []), ...e.data.signatures.map((x) => ({ mspId: x.mspId, source: 'peer' as const, at: e.data.at }))] } } };
      }
      case 'ProposalSubmitted': {
        const p = s.proposals![e.data.proposalId];
        return { ...s, proposals: { ...s.proposals, [e.data.proposalId]: { ...p, status: 'submitted' } } };
      }
      case 'ConfigProposalRejoined': {
        const { proposalId, networkId: _n, channelName: _c, ...rejoined } = e.data;
        const p = s.proposals![proposalId];
        return { ...s, proposals: { ...s.proposals, [proposalId]: { ...p, rejoined } } };
      }
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateSharingIdentity':
        if (s.identityKeyId !== null) throw new ConflictError('This instance already has its sharing identity key.');
        return [{ type: 'SharingIdentityCreated', data: { keyId: c.keyId, at: c.at } }];
      case 'IssueInvitation':
        return [{ type: 'InvitationIssued', data: { invitationId: c.invitationId, bidirectional: c.bidirectional, expiresAt: c.expiresAt, at: c.at } }];
      case 'ConsumeInvitation': {
        const inv = s.issued[c.invitationId];
        if (!inv) throw new UnauthenticatedError('The invitation was not issued by this instance.');
        if (inv.consumedBy !== null) throw new ConflictError('The invitation was already used; ask for a new one.', { invitationId: c.invitationId }, 'INVITATION_USED');
        if (new Date(inv.expiresAt) <= new Date(c.at)) throw new ValidationError('The invitation has expired; ask for a new one.', [{ field: 'invitation_jwt', message: 'expired' }], 'INVITATION_EXPIRED');
        return [{ type: 'InvitationConsumed', data: { invitationId: c.invitationId, peerInstanceId: c.peerInstanceId, at: c.at } }];
      }
      case 'ConnectPeer': {
        if (c.role === 'acceptor' && s.accepted.includes(c.invitationId)) throw new ConflictError('This invitation was already accepted here.', { invitationId: c.invitationId }, 'INVITATION_USED');
        const existing = peerByInstance(s, c.instanceId);
        if (existing && !existing[1].revoked) throw new ConflictError(`Instance ${c.instanceId} is already a peer (peer ${existing[0]}).`, { peerId: Number(existing[0]) }, 'ALREADY_PEERS');
        const { type: _t, ...data } = c;
        return [{ type: 'PeerConnected', data }];
      }
      case 'RecordPeerNodes': {
        const p = s.peers[c.peerId];
        if (!p) throw new NotFoundError('Peer', c.peerId);
        if (p.revoked) throw new ForbiddenError(`Peer ${c.peerId} was revoked.`);
        return [{ type: 'PeerNodesSynced', data: { peerId: c.peerId, instanceId: p.instanceId, nodes: c.nodes, organizations: c.organizations ?? [], networks: c.networks ?? [], at: c.at } }];
      }
      case 'RevokePeer': {
        const p = s.peers[c.peerId];
        if (!p) throw new NotFoundError('Peer', c.peerId);
        if (p.revoked) return [];
        return [{ type: 'PeerRevoked', data: { peerId: c.peerId, instanceId: p.instanceId, at: c.at } }];
      }
      case 'RecordNetworksShared': {
        const p = s.peers[c.peerId];
        if (!p) throw new NotFoundError('Peer', c.peerId);
        // Once per network and peer: a sync that shares it again is no news.
        return c.networks.filter((n) => !(p.sharedNetworks ?? []).includes(n.networkId)).map((n) => ({
          type: 'NetworkShared' as const,
          data: { sharingPeerId: c.peerId, peerId: p.instanceId, resourceType: 'network' as const, resourceId: String(n.networkId), channelName: n.channelName, at: c.at },
        }));
      }
      case 'RecordSharedNetworkReceived': {
        const p = s.peers[c.peerId];
        if (!p) throw new NotFoundError('Peer', c.peerId);
        return [{ type: 'SharedNetworkReceived', data: { sharingPeerId: c.peerId, peerId: p.instanceId, resourceType: 'network', resourceId: String(c.peerNetworkId), localNetworkId: c.localNetworkId, channelName: c.channelName, at: c.at } }];
      }
      case 'PrepareProposal': {
        if (s.proposals?.[c.proposalId]) throw new ConflictError(`Proposal ${c.proposalId} is already known here.`);
        const { type: _t, ...data } = c;
        return [{ type: 'ConfigProposalPrepared', data }];
      }
      case 'AddProposalSignature': {
        const p = s.proposals?.[c.proposalId];
        if (!p || p.role !== 'proposer') throw new NotFoundError('Proposal', c.proposalId);
        if (p.status === 'submitted') throw new ConflictError(`Proposal ${c.proposalId} was already submitted.`, { proposalId: c.proposalId }, 'PROPOSAL_SUBMITTED');
        if ([...p.localSignatures, ...p.received].some((x) => x.mspId === c.signature.mspId)) {
          throw new ConflictError(`Proposal ${c.proposalId} already holds a signature of ${c.signature.mspId}: one signature per organization.`, { mspId: c.signature.mspId }, 'SIGNATURE_EXISTS');
        }
        return [{ type: 'ConfigProposalSigned', data: { proposalId: c.proposalId, channelName: p.channelName, mspId: c.signature.mspId, source: c.source, signature: c.signature, at: c.at } }];
      }
      case 'ShareProposal':
      case 'ReceiveProposal': {
        const p = s.peers[c.peerId];
        if (!p) throw new NotFoundError('Peer', c.peerId);
        if (p.revoked) throw new ForbiddenError(`Peer ${c.peerId} was revoked.`);
        const known = s.proposals?.[c.proposalId];
        const preparedHere = c.type === 'ShareProposal' && known?.role === 'proposer' && known.sharingPeerId === null && known.status === 'awaiting-signatures';
        if (known && !preparedHere) throw new ConflictError(`Proposal ${c.proposalId} is already known here.`);
        const data: ProposalData = { proposalId: c.proposalId, sharingPeerId: c.peerId, peerId: p.instanceId, resourceType: 'proposal', resourceId: c.proposalId, channelName: c.channelName, update: c.update, missingOrganizations: c.missingOrganizations, description: c.description, at: c.at };
        return c.type === 'ShareProposal'
          ? [{ type: 'ProposalShared', data: { ...data, networkId: c.networkId, localSignatures: c.localSignatures } }]
          : [{ type: 'ProposalReceived', data }];
      }
      case 'ShareSignature': {
        const p = s.proposals?.[c.proposalId];
        if (!p || p.role !== 'signer' || p.sharingPeerId === null) throw new NotFoundError('Received proposal', c.proposalId);
        if (p.status !== 'awaiting-signatures') throw new ConflictError(`Proposal ${c.proposalId} was already signed here.`);
        return [{ type: 'SignatureShared', data: { proposalId: c.proposalId, sharingPeerId: p.sharingPeerId, peerId: s.peers[p.sharingPeerId].instanceId, resourceType: 'signature', resourceId: c.proposalId, signatures: c.signatures, at: c.at } }];
      }
      case 'ReceiveSignature': {
        const p = s.proposals?.[c.proposalId];
        if (!p || p.role !== 'proposer' || p.sharingPeerId !== c.peerId) throw new NotFoundError('Proposal', c.proposalId);
        if (p.status === 'submitted') throw new ConflictError(`Proposal ${c.proposalId} was already submitted.`);
        const twice = c.signatures.filter((x, i) => [...p.localSignatures, ...p.received].some((h) => h.mspId === x.mspId) || c.signatures.findIndex((y) => y.mspId === x.mspId) !== i);
        if (twice.length) throw new ConflictError(`Proposal ${c.proposalId} already holds a signature of ${twice.map((x) => x.mspId).join(', ')}: one signature per organization.`, { mspIds: twice.map((x) => x.mspId) }, 'SIGNATURE_EXISTS');
        const stray = c.signatures.filter((x) => !p.missingOrganizations.includes(x.mspId));
        if (stray.length) throw new ValidationError(`Signatures of ${stray.map((x) => x.mspId).join(', ')} were not asked for.`, [{ field: 'signatures', message: 'an organization the proposal does not need' }]);
        return [{ type: 'SignatureReceived', data: { proposalId: c.proposalId, sharingPeerId: c.peerId, peerId: s.peers[c.peerId].instanceId, resourceType: 'signature', resourceId: c.proposalId, signatures: c.signatures, at: c.at } }];
      }
      case 'RecordProposalSubmitted': {
        const p = s.proposals?.[c.proposalId];
        if (!p || p.role !== 'proposer') throw new NotFoundError('Proposal', c.proposalId);
        return [{ type: 'ProposalSubmitted', data: { proposalId: c.proposalId, networkId: p.networkId!, sequence: c.sequence, blockNumber: c.blockNumber, at: c.at } }];
      }
      case 'RecordProposalRejoin': {
        const p = s.proposals?.[c.proposalId];
        if (!p || p.role !== 'proposer') throw new NotFoundError('Proposal', c.proposalId);
        if (p.status !== 'submitted') throw new ConflictError(`Proposal ${c.proposalId} is not submitted: no orderer was removed by it yet.`, { proposalId: c.proposalId });
        if (p.rejoined) return [];
        const { type: _t, ...data } = c;
        return [{ type: 'ConfigProposalRejoined', data: { ...data, networkId: p.networkId!, channelName: p.channelName } }];
      }
      case 'RecordChaincodeShared':
      case 'RecordChaincodeReceived': {
        const p = s.peers[c.peerId];
        if (!p) throw new NotFoundError('Peer', c.peerId);
        if (p.revoked) throw new ForbiddenError(`Peer ${c.peerId} was revoked.`);
        // Once per chaincode and peer: sharing it again is no news.
        if (c.type === 'RecordChaincodeShared' && (p.sharedChaincodes ?? []).includes(c.chaincodeId)) return [];
        const data: ChaincodeShareData = {
          sharingPeerId: c.peerId, peerId: p.instanceId, resourceType: 'chaincode', resourceId: String(c.type === 'RecordChaincodeShared' ? c.chaincodeId : c.peerChaincodeId),
          channelName: c.channelName, name: c.name, version: c.version, sequence: c.sequence, at: c.at,
        };
        return c.type === 'RecordChaincodeShared' ? [{ type: 'ChaincodeShared', data }] : [{ type: 'SharedChaincodeReceived', data: { ...data, localChaincodeId: c.localChaincodeId } }];
      }
      default:
        return assertNever(c);
    }
  },
};
