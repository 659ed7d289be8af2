// Nodes filtered by platform and status (kept in the URL) by the server: the page asks
// GET /nodes (or, with a platform, GET /nodes/platform/{platform}) for the 50 it shows (status,
// offset), so a list of thousands is never
// fetched whole; polled, so status changes appear without a reload.
import { Link, useSearchParams } from 'react-router';
import { NODE_STATUSES, useNodePage, type NodeItem, type NodeStatusFilter } from '../../api/queries';
import { QueryView } from '../../components/states';
import { Pager, StatusBadge } from '../../components/format';
import { DataTable, type Column } from '../../components/DataTable';
import { NodeActions } from './nodeActions';
import { CreateNode } from './CreateNode';
import { ListTitle } from '../../components/ListTitle';

const PAGE = 50;
const PLATFORMS = ['EVM', 'CONSORTIUM', 'LEDGERX'] as const;

const columns: Array<Column<NodeItem>> = [
  { header: 'Name', cell: (n) => <Link to={`/nodes/${n.id}`}>{n.name}</Link> },
  { header: 'Platform', cell: (n) => n.platform },
  { header: 'Role', cell: (n) => n.role },
  { header: 'Status', cell: (n) => <StatusBadge status={n.status} /> },
  { header: 'Block height', cell: (n) => n.block_height ?? '—' },
  { header: 'Network', cell: (n) => (n.network_id ? <Link to={n.platform === 'EVM' ? `/networks/evm/${n.network_id}` : `/networks/consortium/${n.network_id}`}>#{n.network_id}</Link> : '—') },
  { header: 'Actions', cell: (n) => <NodeActions id={n.id} name={n.name} status={n.status} /> },
];

export default function Nodes() {
  const [params, setParams] = useSearchParams();
  const platform = (PLATFORMS as readonly string[]).includes(params.get('platform') ?? '') ? (params.get('platform') as (typeof PLATFORMS)[number]) : undefined;
  const status = (NODE_STATUSES as readonly string[]).includes(params.get('status') ?? '') ? (params.get('status') as NodeStatusFilter) : undefined;
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const q = useNodePage({ platform, status, limit: PAGE, offset });
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    if (k !== 'offset') next.delete('offset');
    setParams(next, { replace: true });
  };
  const filtered = Boolean(platform || status);
  return (
    <section>
      <ListTitle title="Nodes" permission="NODE_CREATE" open="Create node" form={(close) => <CreateNode onCancel={close} />} />
      <form className="filters" role="search" aria-label="Filter nodes" onSubmit={(e) => e.preventDefault()}>
        <label>
          Platform
          <select value={platform ?? ''} onChange={(e) => set('platform', e.target.value)}>
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
          <select value={status ?? ''} onChange={(e) => set('status', e.target.value)}>
            <option value="">All statuses</option>
            {NODE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      <QueryView q={q} what="Loading nodes">
        {(d) => (
          <>
            <DataTable
              caption="Nodes"
              testId="node-table"
              rows={d.items}
              columns={columns}
              rowKey={(n) => n.id}
              rowAttrs={(n) => ({ 'data-node': n.name })}
              empty={filtered ? 'No node matches these filters.' : 'No nodes yet. Nodes are created with a network (Networks) or through the API.'}
            />
            {d.total > 0 ? <Pager total={d.total} limit={PAGE} offset={offset} onOffset={(o) => set('offset', String(o))} /> : null}
          </>
        )}
      </QueryView>
    </section>
  );
}
