// Renewing a chaincode server's TLS certificate (POST /sc/consortium/chaincodes/{id}/server/certificates/renew,
// docs/chaincode.md): after a confirmation that says the server restarts, the new serial and
// expiry are shown. Used where a chaincode's server is shown: the chaincode table of a network and
// the chaincode server's node page.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ActionError } from '../../components/states';
import { When } from '../../components/format';

export function ChaincodeServerRenew({ chaincodeId, what, onDone }: { chaincodeId: number; what: string; onDone?: () => void }) {
  const qc = useQueryClient();
  const renew = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/sc/consortium/chaincodes/{chaincodeId}/server/certificates/renew', { params: { path: { chaincodeId } } })),
    onSuccess: (a) => {
      void qc.invalidateQueries({ queryKey: ['chaincodes'] });
      void qc.invalidateQueries({ queryKey: ['key', a.certificate.key_id] });
      void qc.invalidateQueries({ queryKey: ['node', a.server.id] });
    },
  });
  return (
    <div className="card" role="group" aria-label={`Renew the TLS certificate of ${what}`}>
      {renew.data ? (
        <p className="verdict valid" role="status">
          Renewed the TLS certificate of {what}: serial <code className="hash" data-testid="renewed-serial">{renew.data.certificate.serial_number}</code>, expires{' '}
          <When at={renew.data.certificate.not_after} />; the server is {renew.data.server.status}.
        </p>
      ) : (
        <p>
          Reissue the TLS certificate of {what} from its organization's TLS CA (same key, new serial and expiry)? The server restarts to serve it; the peers keep the
          package they installed, which still verifies it. The peers' client certificate is in that package: a new version renews it.
        </p>
      )}
      <ActionError error={renew.error} />
      <div className="actions">
        {renew.data ? null : (
          <button type="button" className="primary" disabled={renew.isPending} onClick={() => renew.mutate()}>
            {renew.isPending ? 'Renewing…' : 'Renew now'}
          </button>
        )}
        {onDone ? (
          <button type="button" disabled={renew.isPending} onClick={onDone}>
            {renew.data ? 'Close' : 'Cancel'}
          </button>
        ) : null}
      </div>
    </div>
  );
}
