// A consortium node's certificates (its identity and TLS keys, GET /keys/{id}): subject, serial,
// validity and expiry; "Renew certificates" reissues both from the organization's CAs with the
// same keys (POST /nodes/{id}/certificates/renew) and restarts a running node so it serves them,
// after a confirmation that says so. A chaincode server's TLS certificate is renewed from its
// chaincode (POST /sc/consortium/chaincodes/{id}/server/certificates/renew, ChaincodeServerRenew).
import { useState } from 'react';
import { useMutation, useQueries, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Json } from '../../api/client';
import { ActionError, ErrorState, Loading } from '../../components/states';
import { DataTable, type Column } from '../../components/DataTable';
import { When } from '../../components/format';
import { Can } from '../../session';
import { ChaincodeServerRenew } from '../networks/ChaincodeServerRenew';

type Key = Json<'/api/v1/keys/{id}', 'get'>;
type Row = { purpose: string; key: Key };

const columns: Array<Column<Row>> = [
  { header: 'Purpose', cell: (r) => r.purpose },
  { header: 'Subject', cell: (r) => r.key.certificate?.subject ?? <span className="muted">no certificate</span> },
  { header: 'Serial', cell: (r) => (r.key.certificate ? <code className="hash" data-testid={`serial-${r.purpose}`}>{r.key.certificate.serialNumber}</code> : '—') },
  { header: 'Valid from', cell: (r) => <When at={r.key.certificate?.notBefore} /> },
  { header: 'Expires', cell: (r) => <When at={r.key.expiresAt} /> },
  { header: 'Expiry', cell: (r) => <span className={`badge expiry-${r.key.expiryStatus}`}>{r.key.expiryStatus}</span> },
];

export function NodeCertificates({ nodeId, name, status, identityKeyId, tlsKeyId, chaincodeId }: { nodeId: number; name: string; status: string; identityKeyId: number | null; tlsKeyId: number | null; chaincodeId?: number }) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const ids = [
    { purpose: 'identity', id: identityKeyId },
    { purpose: 'TLS', id: tlsKeyId },
  ].filter((k): k is { purpose: string; id: number } => k.id !== null);
  const keys = useQueries({ queries: ids.map((k) => ({ queryKey: ['key', k.id], queryFn: () => unwrap(api.GET('/api/v1/keys/{id}', { params: { path: { id: k.id } } })) })) });
  const renew = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/nodes/{id}/certificates/renew', { params: { path: { id: nodeId } } })),
    onSuccess: () => {
      setConfirming(false);
      for (const k of ids) void qc.invalidateQueries({ queryKey: ['key', k.id] });
      void qc.invalidateQueries({ queryKey: ['node', nodeId] });
    },
  });
  if (ids.length === 0) return <div className="state empty">This node has no certificates{chaincodeId ? ' (a chaincode server that serves plain text)' : ''}.</div>;
  const failed = keys.find((k) => k.error);
  return (
    <>
      {keys.some((k) => k.isPending) ? (
        <Loading what="Loading certificates" />
      ) : failed ? (
        <ErrorState error={failed.error} retry={() => keys.forEach((k) => k.refetch())} />
      ) : (
        <DataTable caption={`Certificates of ${name}`} rows={ids.map((k, i) => ({ purpose: k.purpose, key: keys[i].data! }))} columns={columns} rowKey={(r) => r.purpose} empty="No certificates." />
      )}
      <Can permission="CERTIFICATE_RENEW">
        {chaincodeId ? (
          !confirming ? (
            <button type="button" onClick={() => setConfirming(true)}>
              Renew server certificate
            </button>
          ) : (
            <ChaincodeServerRenew chaincodeId={chaincodeId} what={`chaincode server ${name}`} onDone={() => setConfirming(false)} />
          )
        ) : !confirming ? (
          <button type="button" onClick={() => setConfirming(true)} disabled={renew.isPending}>
            Renew certificates
          </button>
        ) : (
          <div className="card" role="group" aria-label="Confirm renewal">
            <p>
              Reissue the identity and TLS certificates of {name} from its organization's CAs (same keys, new validity and serial numbers)?
              {status === 'running' ? ' The node is running: it restarts to serve them.' : ''}
            </p>
            <div className="actions">
              <button type="button" className="primary" disabled={renew.isPending} onClick={() => renew.mutate()}>
                {renew.isPending ? 'Renewing…' : 'Renew now'}
              </button>
              <button type="button" disabled={renew.isPending} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          </div>
        )}
        <ActionError error={renew.error} />
        {renew.data ? (
          <p className="verdict valid" role="status">
            Renewed {renew.data.certificates.length} certificates; the node is {renew.data.node.status}.
          </p>
        ) : null}
      </Can>
    </>
  );
}
