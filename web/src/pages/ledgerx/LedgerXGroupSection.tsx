// On a ledgerX node's page: a group (orderer group or committer) lists its role nodes with their
// status, ports and metrics URLs, each linking to its own page (logs, events, actions); a committer
// shows its database; a role names its group and its metrics URL.
import { Link } from 'react-router';
import { useAllNodes } from '../../api/queries';
import { ROLE_LABEL } from './queries';
import { groupViewOf, RoleList, type GroupView } from './RoleList';
import './ledgerx.css';

interface LedgerXParts {
  id: number;
  name: string;
  ledgerXOrdererGroup?: GroupView;
  ledgerXCommitter?: GroupView & { database: { host: string; port: number; name: string; user: string; external?: boolean } };
  ledgerXChild?: { groupId: number; role: string; grpcPort: number; monitoringPort: number; metricsUrl?: string };
}

export function LedgerXGroupSection({ node }: { node: LedgerXParts }) {
  const g = groupViewOf(node);
  const all = useAllNodes('LEDGERX');
  if (node.ledgerXChild) {
    const c = node.ledgerXChild;
    return (
      <section aria-labelledby="lx-role-title">
        <h2 id="lx-role-title">{ROLE_LABEL[c.role] ?? c.role} of a ledgerX group</h2>
        <dl className="facts">
          <dt>Group</dt>
          <dd>
            <Link to={`/nodes/${c.groupId}`}>{all.data?.items.find((n) => n.id === c.groupId)?.name ?? `node ${c.groupId}`}</Link>
          </dd>
          <dt>gRPC port</dt>
          <dd>{c.grpcPort}</dd>
          <dt>Monitoring port</dt>
          <dd>{c.monitoringPort}</dd>
          <dt>Metrics</dt>
          <dd>{c.metricsUrl ? <a href={c.metricsUrl} target="_blank" rel="noreferrer">{c.metricsUrl}</a> : '—'}</dd>
        </dl>
      </section>
    );
  }
  if (!g) return null;
  const byId = new Map((all.data?.items ?? []).map((n) => [n.id, n.status]));
  const db = node.ledgerXCommitter?.database;
  return (
    <section aria-labelledby="lx-group-title">
      <h2 id="lx-group-title">{g.kind === 'committer' ? 'Services' : 'Roles'}</h2>
      <p className="muted">
        Each is a node of its own: its page has its logs, events and actions. External IP {g.view.externalIp}.
      </p>
      <RoleList group={g.view} kind={g.kind} status={(id) => byId.get(id)} label={`${node.name}: ${g.kind === 'committer' ? 'services' : 'roles'}`} />
      {db ? (
        <>
          <h3>Database</h3>
          <dl className="facts">
            <dt>Host</dt>
            <dd>
              {db.host}:{db.port}
            </dd>
            <dt>Database</dt>
            <dd>{db.name}</dd>
            <dt>User</dt>
            <dd>{db.user} (password never shown)</dd>
            <dt>Made by</dt>
            <dd>{db.external ? 'Given as a connection string at creation: the service neither made it nor drops it' : "The service, in its own PostgreSQL: dropped with the committer"}</dd>
          </dl>
        </>
      ) : null}
    </section>
  );
}
