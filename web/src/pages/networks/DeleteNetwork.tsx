// "Delete network" and its confirmation, one for every platform (NETWORK_DELETE): what goes and
// what stays is the platform's to say, as is what to do about a 409. An evm network's
// confirmation offers to delete its validator keys with it (?deleteKeys=true, KEY_DELETE).
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Can } from '../../session';
import { ConfirmDelete } from '../../components/ConfirmDelete';

const remove = {
  evm: (id: number, deleteKeys: boolean) => unwrap(api.DELETE('/api/v1/networks/evm/{id}', { params: { path: { id }, query: deleteKeys ? { deleteKeys } : {} } })),
  consortium: (id: number) => unwrap(api.DELETE('/api/v1/networks/consortium/{id}', { params: { path: { id } } })),
  ledgerx: (id: number) => unwrap(api.DELETE('/api/v1/networks/ledgerx/{id}', { params: { path: { id } } })),
};

export function DeleteNetwork({ platform, network, children, inUseHelp, buttons }: { platform: keyof typeof remove; network: { id: number; name: string }; children: ReactNode; inUseHelp?: ReactNode; buttons?: ReactNode }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [deleteKeys, setDeleteKeys] = useState(false);
  return (
    <>
      <div className="actions">
        {buttons}
        {!confirming ? (
          <Can permission="NETWORK_DELETE">
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              Delete network
            </button>
          </Can>
        ) : null}
      </div>
      {confirming ? (
        <ConfirmDelete
          headingLevel={2}
          title={`Delete the network ${network.name}?`}
          name={network.name}
          action={() => remove[platform](network.id, deleteKeys)}
          onDeleted={async () => {
            await qc.invalidateQueries({ queryKey: ['networks'] });
            navigate('/networks');
          }}
          onCancel={() => setConfirming(false)}
          inUse={inUseHelp ? { title: 'The network is in use and was not deleted (409).', help: inUseHelp } : undefined}
        >
          {children}
          {platform === 'evm' ? (
            <Can permission="KEY_DELETE">
              <label className="inline">
                <input type="checkbox" checked={deleteKeys} onChange={(e) => setDeleteKeys(e.target.checked)} /> Also delete its validator keys (deleteKeys: each deletion audited; a key another network uses is kept)
              </label>
            </Can>
          ) : null}
        </ConfirmDelete>
      ) : null}
    </>
  );
}
