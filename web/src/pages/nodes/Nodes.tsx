// Every node, filtered by platform and status (kept in the URL), paged in the browser so a
// thousand nodes draw as fast as fifty; status polled.
import { useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useAllNodes } from '../../api/queries';
import { Empty, QueryView } from '../../components/states';
import { Pager, StatusBadge } from '../../components/format';
import { NodeActions } from './nodeActions';
import { CreateNode } from './CreateNode';
import { Can } from '../../session';

const PAGE = 50;
const PLATFORMS = ['EVM', 'CONSORTIUM', 'LEDGERX'];

export default function Nodes() {
  const [params, setParams] = useSearchParams();
  const platform = params.get('platform') ?? '';
  const status = params.get('status') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const q = useAllNodes();
  const [creating, setCreating] = useState(false);
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    if (k !== 'offset') next.delete('offset');
    setParams(next, { replace: true });
  };
  const statuses = useMemo(() => [...new Set((q.data?.items ?? []).map((n) => n.status))].sort(), [q.data]);
  const filtered = useMemo(() => (q.data?.items ?? []).filter((n) => (!platform || n.platform === platform) && (!status || n.status === status)), [q.data, platform, status]);
  return (
    <section>
      <div className="title-row">
        <h1>Nodes</h1>
        {!creating ? (
          <Can permission="NODE_CREATE">
            <button type="button" className="primary" onClick={() => setCreating(true)}>
              Create node
            </button>
          </Can>
        ) : null}
      </div>
      {creating ? <CreateNode onCancel={() => setCreating(false)} /> : null}
      <form className="filters" role="search" aria-label="Filter nodes" onSubmit={(e) => e.preventDefault()}>
        <label>
          Platform
          <select value={platform} onChange={(e) => set('platform', e.target.value)}>
            <option value="">All platforms</option>
            {PLATFORMS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => set('status', e.target.value)}>
            <option value="">All statuses</option>
            {[...new Set([...statuses, ...(status ? [status] : [])])].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      <QueryView q={q} what="Loading nodes">
        {(d) =>
          d.total === 0 ? (
            <Empty>No nodes yet. Nodes are created with a network (Networks) or through the API.</Empty>
          ) : filtered.length === 0 ? (
            <Empty>No node matches these filters.</Empty>
          ) : (
            <>
              <table data-testid="node-table">
                <caption className="sr-only">Nodes</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Platform</th>
                    <th scope="col">Role</th>
                    <th scope="col">Status</th>
                    <th scope="col">Block height</th>
                    <th scope="col">Network</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {filtered.slice(offset, offset + PAGE).map((n) => (
                    <tr key={n.id} data-node={n.name}>
                      <td>
                        <Link to={`/nodes/${n.id}`}>{n.name}</Link>
                      </td>
                      <td>{n.platform}</td>
                      <td>{n.role}</td>
                      <td>
                        <StatusBadge status={n.status} />
                      </td>
                      <td>{n.block_height ?? '—'}</td>
                      <td>{n.network_id ? <Link to={n.platform === 'EVM' ? `/networks/evm/${n.network_id}` : `/networks/consortium/${n.network_id}`}>#{n.network_id}</Link> : '—'}</td>
                      <td>
                        <NodeActions id={n.id} name={n.name} status={n.status} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager total={filtered.length} limit={PAGE} offset={offset} onOffset={(o) => set('offset', String(o))} />
            </>
          )
        }
      </QueryView>
    </section>
  );
}
