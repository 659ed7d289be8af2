// The map of an EVM network (GET /networks/evm/{id}/map): its validators, bootnodes and full
// nodes, and which node is started with which as a seed (besu --bootnodes: a bootnode link or a
// static peer). Drawn as a small ring (nodes as circles, links as lines, for a glance) and given
// as two tables (what a screen reader and a test read; names without links, which the nodes
// table above has). An anvil network is one node, no links.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Json } from '../../api/client';
import { POLL_MS } from '../../api/queries';
import { QueryView } from '../../components/states';
import { StatusBadge } from '../../components/format';
import { DataTable, type Column } from '../../components/DataTable';

type NetworkMap = Json<'/api/v1/networks/evm/{id}/map', 'get'>;
type MapNode = NetworkMap['nodes'][number];
type MapLink = NetworkMap['links'][number];

const ROLE_COLOUR: Record<string, string> = { validator: '#2563eb', bootnode: '#b45309', fullnode: '#15803d' };

function Ring({ map }: { map: NetworkMap }) {
  const size = 260;
  const r = map.nodes.length > 1 ? 95 : 0;
  const at = new Map(map.nodes.map((n, i) => [n.id, { x: size / 2 + r * Math.cos((2 * Math.PI * i) / map.nodes.length - Math.PI / 2), y: size / 2 + r * Math.sin((2 * Math.PI * i) / map.nodes.length - Math.PI / 2) }]));
  return (
    <svg width={size} height={size} viewBox={`0 0 ${size} ${size}`} aria-hidden="true" className="network-map">
      {map.links.map((l, i) => {
        const a = at.get(l.from);
        const b = at.get(l.to);
        return a && b ? <line key={i} x1={a.x} y1={a.y} x2={b.x} y2={b.y} stroke={l.kind === 'bootnode' ? '#b45309' : '#94a3b8'} strokeDasharray={l.kind === 'bootnode' ? '4 3' : undefined} /> : null;
      })}
      {map.nodes.map((n) => {
        const p = at.get(n.id)!;
        return (
          <g key={n.id}>
            <circle cx={p.x} cy={p.y} r={14} fill={ROLE_COLOUR[n.role] ?? '#64748b'} opacity={n.status === 'running' ? 1 : 0.4} />
            <text x={p.x} y={p.y + 28} textAnchor="middle" fontSize="11">
              {n.name}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function EvmNetworkMap({ networkId }: { networkId: number }) {
  const map = useQuery({ queryKey: ['nodes', 'map', networkId], refetchInterval: POLL_MS * 5, queryFn: () => unwrap(api.GET('/api/v1/networks/evm/{id}/map', { params: { path: { id: networkId } } })) });
  return (
    <QueryView q={map} what="Loading the map">
      {(m) => {
        const name = new Map(m.nodes.map((n) => [n.id, n.name]));
        const nodeColumns: Array<Column<MapNode>> = [
          { header: 'Node', cell: (n) => n.name },
          { header: 'Role', cell: (n) => n.role },
          { header: 'Status', cell: (n) => <StatusBadge status={n.status} /> },
          { header: 'Validator address', cell: (n) => (n.validator_address ? <code>{n.validator_address}</code> : '—') },
          { header: 'P2P port', cell: (n) => n.p2p_port ?? '—' },
          { header: 'RPC port', cell: (n) => n.rpc_http_port ?? '—' },
        ];
        const linkColumns: Array<Column<MapLink>> = [
          { header: 'Node', cell: (l) => name.get(l.from) ?? l.from },
          { header: 'Started with', cell: (l) => name.get(l.to) ?? l.to },
          { header: 'As', cell: (l) => (l.kind === 'bootnode' ? 'bootnode' : 'static peer') },
        ];
        return (
          <div className="card" data-testid="evm-map">
            {m.nodes.length ? <Ring map={m} /> : null}
            <p className="muted">
              {m.nodes.filter((n) => n.role === 'validator').length} validators, {m.nodes.filter((n) => n.role === 'bootnode').length} bootnodes, {m.nodes.filter((n) => n.role === 'fullnode').length} full nodes; {m.links.length} links
              {m.network.client === 'anvil' ? ' (anvil runs one node: no links)' : ''}.
            </p>
            <DataTable caption="Nodes on the map" rows={m.nodes} columns={nodeColumns} rowKey={(n) => n.id} empty="No nodes yet: starting the network creates one per validator." />
            {m.links.length ? <DataTable caption="Links: the seeds each node starts with" rows={m.links} columns={linkColumns} rowKey={(l) => `${l.from}-${l.to}`} /> : null}
          </div>
        );
      }}
    </QueryView>
  );
}
