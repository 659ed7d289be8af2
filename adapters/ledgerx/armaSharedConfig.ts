// Arma's shared config (fabric-x-orderer 1.0: message ordererpb.SharedConfig of
// fabric-x-common's api/ordererpb/configuration.proto), the metadata of a ledgerX channel's
// ConsensusType "arma": every party's router, batcher, consenter and assembler endpoints and
// certificates, its CA and TLS CA certificates, the SmartBFT and batching settings.
//
// @hyperledger/fabric-protos has no ordererpb messages, so they are declared here by field
// number and written with google-protobuf's BinaryWriter (already a dependency of this
// service; no generated code, no .proto file to ship). As Go's proto3 marshalling does: fields
// in number order, zero values (0, "", false, empty bytes) left out.
//   encodeArmaSharedConfig(config) -> Uint8Array
import googleProtobuf from 'google-protobuf';
import type { LedgerXConsensusSettings } from '../../domain/ledgerx/ledgerxConsensus.ts';

const { BinaryWriter } = googleProtobuf;
type Writer = InstanceType<typeof BinaryWriter>;

export interface ArmaEndpoint {
  host: string;
  port: number;
  tlsCertPem: string;
  /** Batchers and consenters sign; routers and assemblers carry no signing certificate. */
  signCertPem?: string;
}

export interface ArmaParty {
  partyId: number;
  caCertPems: string[];
  tlsCaCertPems: string[];
  router: ArmaEndpoint;
  batchers: (ArmaEndpoint & { shardId: number })[];
  consenter: ArmaEndpoint;
  assembler: ArmaEndpoint;
}

export interface ArmaSharedConfig {
  parties: ArmaParty[];
  settings: LedgerXConsensusSettings;
  maxPartyId: number;
}

// Field writers that leave out proto3 zero values.
const uint = (w: Writer, field: number, v: number) => { if (v) w.writeUint64(field, v); };
const uint32 = (w: Writer, field: number, v: number) => { if (v) w.writeUint32(field, v); };
const str = (w: Writer, field: number, v: string) => { if (v) w.writeString(field, v); };
const bool = (w: Writer, field: number, v: boolean) => { if (v) w.writeBool(field, v); };
const bytes = (w: Writer, field: number, pem: string | undefined) => { if (pem) w.writeBytes(field, Buffer.from(pem)); };
const message = (w: Writer, field: number, write: (w: Writer) => void) => w.writeMessage(field, {}, (_: unknown, inner: Writer) => write(inner));

function endpoint(w: Writer, e: ArmaEndpoint, layout: 'router' | 'consenter' | 'assembler') {
  // RouterNodeConfig / AssemblerNodeConfig: host 1, port 2, tls_cert 3.
  // ConsenterNodeConfig: host 1, port 2, sign_cert 3, tls_cert 4.
  str(w, 1, e.host);
  uint32(w, 2, e.port);
  if (layout === 'consenter') {
    bytes(w, 3, e.signCertPem);
    bytes(w, 4, e.tlsCertPem);
  } else bytes(w, 3, e.tlsCertPem);
}

function party(w: Writer, p: ArmaParty) {
  uint32(w, 1, p.partyId);
  for (const pem of p.caCertPems) w.writeBytes(2, Buffer.from(pem));
  for (const pem of p.tlsCaCertPems) w.writeBytes(3, Buffer.from(pem));
  message(w, 4, (r) => endpoint(r, p.router, 'router'));
  for (const b of p.batchers) {
    // BatcherNodeConfig: shardID 1, host 2, port 3, sign_cert 4, tls_cert 5.
    message(w, 5, (bw) => {
      uint32(bw, 1, b.shardId);
      str(bw, 2, b.host);
      uint32(bw, 3, b.port);
      bytes(bw, 4, b.signCertPem);
      bytes(bw, 5, b.tlsCertPem);
    });
  }
  message(w, 6, (c) => endpoint(c, p.consenter, 'consenter'));
  message(w, 7, (a) => endpoint(a, p.assembler, 'assembler'));
}

function smartBft(w: Writer, s: LedgerXConsensusSettings['smartBft']) {
  uint(w, 1, s.requestBatchMaxCount);
  uint(w, 2, s.requestBatchMaxBytes);
  str(w, 3, s.requestBatchMaxInterval);
  uint(w, 4, s.incomingMessageBufferSize);
  uint(w, 5, s.requestPoolSize);
  str(w, 6, s.requestForwardTimeout);
  str(w, 7, s.requestComplainTimeout);
  str(w, 8, s.requestAutoRemoveTimeout);
  str(w, 9, s.viewChangeResendInterval);
  str(w, 10, s.viewChangeTimeout);
  str(w, 11, s.leaderHeartbeatTimeout);
  uint(w, 12, s.leaderHeartbeatCount);
  uint(w, 13, s.numOfTicksBehindBeforeSyncing);
  str(w, 14, s.collectTimeout);
  bool(w, 15, s.syncOnStart);
  bool(w, 16, s.speedUpViewChange);
  bool(w, 17, s.leaderRotation);
  uint(w, 18, s.decisionsPerLeader);
  uint(w, 19, s.requestMaxBytes);
  str(w, 20, s.requestPoolSubmitTimeout);
}

function batching(w: Writer, b: LedgerXConsensusSettings['batching']) {
  // BatchingConfig: BatchTimeouts 1, BatchSize 2, RequestMaxBytes 3 (uint64).
  message(w, 1, (t) => {
    str(t, 1, b.batchCreationTimeout);
    str(t, 2, b.firstStrikeThreshold);
    str(t, 3, b.secondStrikeThreshold);
    str(t, 4, b.autoRemoveTimeout);
  });
  // BatchSize: MaxMessageCount 1, AbsoluteMaxBytes 2, PreferredMaxBytes 3 (not in use in 1.0).
  message(w, 2, (s) => {
    uint32(s, 1, b.maxMessageCount);
    uint32(s, 2, b.absoluteMaxBytes);
  });
  uint(w, 3, b.requestMaxBytes);
}

export function encodeArmaSharedConfig(config: ArmaSharedConfig): Uint8Array {
  // SharedConfig: PartiesConfig 1, ConsensusConfig 2 (SmartBFTConfig 1), BatchingConfig 3, MaxPartyID 4.
  const w = new BinaryWriter();
  for (const p of config.parties) message(w, 1, (pw) => party(pw, p));
  message(w, 2, (c) => message(c, 1, (s) => smartBft(s, config.settings.smartBft)));
  message(w, 3, (b) => batching(b, config.settings.batching));
  uint32(w, 4, config.maxPartyId);
  return w.getResultBuffer();
}
