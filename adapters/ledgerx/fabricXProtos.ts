// The Fabric-X messages the service sends and reads, declared by hand (protobufjs JSON schema)
// from fabric-x-common 0.2.8's api/ (applicationpb/block_tx.proto and config.proto,
// committerpb/query.proto, status.proto, ref.proto, block_query.proto, msppb/msp.proto), the
// release fabric-x-committer 1.0.4 builds on. Fabric's own messages (common.Envelope, Block,
// BlockchainInfo, SignaturePolicyEnvelope) come from @hyperledger/fabric-protos.
//   fx.<Message>.encode(obj).finish() / fx.<Message>.decode(bytes)
//   COMMITTER_STATUS        committerpb.Status names by code
//   META_NAMESPACE, CONFIG_NAMESPACE  the system namespaces ("_meta", "_config")
import protobuf from 'protobufjs';

const f = (id: number, type: string, rule?: 'repeated') => ({ id, type, ...(rule ? { rule } : {}) });
// proto3 `optional`: a field with presence (absent = nil version, "the key does not exist").
const opt = (id: number, type: string) => ({ id, type, options: { proto3_optional: true } });

const root = protobuf.Root.fromJSON({
  nested: {
    msppb: {
      nested: {
        Identity: { oneofs: { creator: { oneof: ['certificate', 'certificate_id'] } }, fields: { msp_id: f(1, 'string'), certificate: f(2, 'bytes'), certificate_id: f(3, 'string') } },
      },
    },
    applicationpb: {
      nested: {
        Tx: { fields: { namespaces: f(1, 'TxNamespace', 'repeated'), endorsements: f(2, 'Endorsements', 'repeated'), metadata: f(3, 'bytes', 'repeated') } },
        TxNamespace: { fields: { ns_id: f(1, 'string'), ns_version: f(2, 'uint64'), reads_only: f(3, 'Read', 'repeated'), read_writes: f(4, 'ReadWrite', 'repeated'), blind_writes: f(5, 'Write', 'repeated') } },
        Read: { fields: { key: f(1, 'bytes'), version: opt(2, 'uint64') } },
        ReadWrite: { fields: { key: f(1, 'bytes'), version: opt(2, 'uint64'), value: f(3, 'bytes') } },
        Write: { fields: { key: f(1, 'bytes'), value: f(2, 'bytes') } },
        Endorsements: { fields: { endorsements_with_identity: f(1, 'EndorsementWithIdentity', 'repeated') } },
        EndorsementWithIdentity: { fields: { endorsement: f(1, 'bytes'), identity: f(2, 'msppb.Identity') } },
        NamespacePolicy: { oneofs: { rule: { oneof: ['threshold_rule', 'msp_rule'] } }, fields: { threshold_rule: f(1, 'ThresholdRule'), msp_rule: f(2, 'bytes') } },
        ThresholdRule: { fields: { scheme: f(1, 'string'), public_key: f(2, 'bytes') } },
        NamespacePolicies: { fields: { policies: f(1, 'PolicyItem', 'repeated') } },
        PolicyItem: { fields: { namespace: f(1, 'string'), policy: f(2, 'bytes'), version: f(3, 'uint64') } },
        ConfigTransaction: { fields: { envelope: f(1, 'bytes'), version: f(2, 'uint64') } },
      },
    },
    committerpb: {
      nested: {
        View: { fields: { id: f(1, 'string') } },
        TxStatusQuery: { fields: { view: opt(1, 'View'), tx_ids: f(2, 'string', 'repeated') } },
        TxStatusResponse: { fields: { statuses: f(1, 'TxStatus', 'repeated') } },
        TxStatus: { fields: { ref: f(1, 'TxRef'), status: f(2, 'int32') } },
        TxRef: { fields: { block_num: f(1, 'uint64'), tx_num: f(2, 'uint32'), tx_id: f(3, 'string') } },
        BlockNumber: { fields: { number: f(1, 'uint64') } },
        TxID: { fields: { tx_id: f(1, 'string') } },
      },
    },
  },
});

const type = (name: string) => root.lookupType(name);

export const fx = {
  Identity: type('msppb.Identity'),
  Tx: type('applicationpb.Tx'),
  TxNamespace: type('applicationpb.TxNamespace'),
  NamespacePolicy: type('applicationpb.NamespacePolicy'),
  NamespacePolicies: type('applicationpb.NamespacePolicies'),
  ConfigTransaction: type('applicationpb.ConfigTransaction'),
  TxStatusQuery: type('committerpb.TxStatusQuery'),
  TxStatusResponse: type('committerpb.TxStatusResponse'),
  BlockNumber: type('committerpb.BlockNumber'),
  TxID: type('committerpb.TxID'),
};

/** Decoded with Long-free numbers (block numbers and versions stay far below 2^53) and byte arrays as Buffers. */
export function decode<T>(t: protobuf.Type, bytes: Uint8Array): T {
  // A Buffer makes protobufjs read bytes fields as Buffers (a plain Uint8Array gives Uint8Arrays).
  const input = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return t.toObject(t.decode(input), { longs: Number, defaults: true, arrays: true }) as T;
}

export const META_NAMESPACE = '_meta';
export const CONFIG_NAMESPACE = '_config';

/** committerpb.Status: COMMITTED, or why the committer refused a transaction. */
export const COMMITTER_STATUS: Record<number, string> = {
  0: 'STATUS_UNSPECIFIED', 1: 'COMMITTED', 2: 'ABORTED_SIGNATURE_INVALID', 3: 'ABORTED_MVCC_CONFLICT',
  100: 'REJECTED_DUPLICATE_TX_ID', 101: 'MALFORMED_BAD_ENVELOPE', 102: 'MALFORMED_MISSING_TX_ID', 103: 'MALFORMED_UNSUPPORTED_ENVELOPE_PAYLOAD',
  104: 'MALFORMED_BAD_ENVELOPE_PAYLOAD', 105: 'MALFORMED_TX_ID_CONFLICT', 106: 'MALFORMED_EMPTY_NAMESPACES', 107: 'MALFORMED_DUPLICATE_NAMESPACE',
  108: 'MALFORMED_NAMESPACE_ID_INVALID', 109: 'MALFORMED_BLIND_WRITES_NOT_ALLOWED', 110: 'MALFORMED_NO_WRITES', 111: 'MALFORMED_EMPTY_KEY',
  112: 'MALFORMED_DUPLICATE_KEY_IN_READ_WRITE_SET', 113: 'MALFORMED_MISSING_SIGNATURE', 114: 'MALFORMED_NAMESPACE_POLICY_INVALID', 115: 'MALFORMED_CONFIG_TX_INVALID',
};

export const committerStatusName = (code: number) => COMMITTER_STATUS[code] ?? `STATUS_${code}`;
