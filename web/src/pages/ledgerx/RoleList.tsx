// The role nodes of an orderer group (router, batcher, consenter, assembler) or the services of a
// committer (sidecar, coordinator, vc, verifier, query): each a node of its own (its logs, events
// and actions on its page), with its status, gRPC port, monitoring port and metrics URL.
import { Link } from 'react-router';
import { StatusBadge } from '../../components/format';
import { COMMITTER_SERVICES, ORDERER_ROLES, ROLE_LABEL } from './queries';

/** ledgerXOrdererGroup or ledgerXCommitter of a group's node view. */
export interface GroupView {
  externalIp: string;
  roles: Array<{ nodeId: number; role: string }>;
}

export function groupViewOf(node: { ledgerXOrdererGroup?: GroupView; ledgerXCommitter?: GroupView }): { kind: 'orderer-group' | 'committer'; view: GroupView } | null {
  if (node.ledgerXOrdererGroup) return { kind: 'orderer-group', view: node.ledgerXOrdererGroup };
  if (node.ledgerXCommitter) return { kind: 'committer', view: node.ledgerXCommitter };
  return null;
}

export function RoleList({ group, kind, status, label }: { group: GroupView; kind: 'orderer-group' | 'committer'; status: (nodeId: number) => string | undefined; label: string }) {
  const order: readonly string[] = kind === 'orderer-group' ? ORDERER_ROLES : COMMITTER_SERVICES;
  const roles = [...group.roles].sort((a, b) => order.indexOf(a.role) - order.indexOf(b.role));
  const g = group as unknown as Record<string, unknown>;
  return (
    <ul className="lx-roles" aria-label={label}>
      {roles.map((r) => {
        const port = g[`${r.role}Port`];
        const monitoring = g[`${r.role}MonitoringPort`];
        const metrics = g[`${r.role}MetricsUrl`];
        return (
          <li key={r.nodeId}>
            <Link to={`/nodes/${r.nodeId}`}>{ROLE_LABEL[r.role] ?? r.role}</Link> <StatusBadge status={status(r.nodeId)} />
            <small>
              gRPC {group.externalIp}:{String(port ?? '—')}
            </small>
            <small>
              monitoring {String(monitoring ?? '—')}
              {typeof metrics === 'string' ? (
                <>
                  {' · '}
                  <a href={metrics} target="_blank" rel="noreferrer" aria-label={`${ROLE_LABEL[r.role] ?? r.role} metrics (${metrics})`}>
                    metrics
                  </a>
                </>
              ) : null}
            </small>
          </li>
        );
      })}
    </ul>
  );
}
