// A ledgerX network's map: each organization with its orderer groups (the four roles) and
// committers (the five services), every role's endpoint, status and metrics URL; and where
// clients go: broadcast (routers), deliver (assemblers), committed blocks (sidecars), query.
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { POLL_MS } from '../../api/queries';
import { Empty, QueryView } from '../../components/states';
import { StatusBadge } from '../../components/format';
import { ROLE_LABEL, type LedgerXMap as MapData } from './queries';

type Role = MapData['organizations'][number]['orderer_groups'][number]['roles'][number];

export function LedgerXMap({ id }: { id: number }) {
  const q = useQuery({ queryKey: ['ledgerx', id, 'map'], refetchInterval: POLL_MS, queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/map', { params: { path: { id } } })) });
  return (
    <QueryView q={q} what="Loading the map">
      {(m) => (
        <>
          <section className="lx-endpoints" aria-labelledby="lx-endpoints">
            <h2 id="lx-endpoints">Endpoints</h2>
            <Endpoints label="Broadcast (routers)" list={m.endpoints.broadcast} />
            <Endpoints label="Deliver (assemblers)" list={m.endpoints.deliver} />
            <Endpoints label="Committed blocks (sidecars)" list={m.endpoints.committed_blocks} />
            <Endpoints label="Query (query services)" list={m.endpoints.query} />
          </section>
          <h2>Organizations</h2>
          {m.organizations.length === 0 ? <Empty>No organizations.</Empty> : null}
          {m.organizations.map((o) => (
            <section key={o.organization_id} className="card lx-org" aria-label={`Organization ${o.msp_id}`}>
              <h3>{o.msp_id}</h3>
              {o.orderer_groups.map((g) => (
                <div key={g.node_id}>
                  <h4>
                    Orderer group <Link to={`/nodes/${g.node_id}`}>{g.name}</Link> (party {g.party_id ?? '—'}, {g.joined ? 'joined' : 'not joined'}) <StatusBadge status={g.status} />
                  </h4>
                  <Roles roles={g.roles} label={`${g.name} roles`} />
                </div>
              ))}
              {o.committers.map((c) => (
                <div key={c.node_id}>
                  <h4>
                    Committer <Link to={`/nodes/${c.node_id}`}>{c.name}</Link> ({c.joined ? 'joined' : 'not joined'}) <StatusBadge status={c.status} />
                  </h4>
                  <Roles roles={c.services} label={`${c.name} services`} />
                </div>
              ))}
              {o.orderer_groups.length + o.committers.length === 0 ? <p className="muted">No nodes.</p> : null}
            </section>
          ))}
        </>
      )}
    </QueryView>
  );
}

function Endpoints({ label, list }: { label: string; list: string[] }) {
  return (
    <>
      <h3>{label}</h3>
      {list.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul>
          {list.map((e) => (
            <li key={e}>
              <code>{e}</code>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Roles({ roles, label }: { roles: Role[]; label: string }) {
  return (
    <ul className="lx-roles" aria-label={label}>
      {roles.map((r) => (
        <li key={r.node_id}>
          <Link to={`/nodes/${r.node_id}`}>{ROLE_LABEL[r.role] ?? r.role}</Link> <StatusBadge status={r.status} />
          <small>
            <code>{r.endpoint}</code>
          </small>
          <small>{r.metrics_url ? <a href={r.metrics_url} target="_blank" rel="noreferrer">{r.metrics_url}</a> : `monitoring ${r.monitoring_port}`}</small>
        </li>
      ))}
    </ul>
  );
}
