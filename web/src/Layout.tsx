import type { ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { editionAtLeast, useSession } from './session';

// `edition`: the area needs that edition; on a lower one its link carries a badge saying so (the
// page itself says what the edition would offer).
const areas: Array<{ to: string; label: string; permission: string; edition?: 'pro' | 'enterprise' }> = [
  { to: '/', label: 'Dashboard', permission: 'NODE_READ' },
  { to: '/networks', label: 'Networks', permission: 'NETWORK_READ' },
  { to: '/nodes', label: 'Nodes', permission: 'NODE_READ' },
  { to: '/hosts', label: 'Node hosts', permission: 'HOST_READ' },
  { to: '/templates', label: 'Templates', permission: 'TEMPLATE_READ', edition: 'pro' },
  { to: '/sharing', label: 'Node sharing', permission: 'SHARING_READ', edition: 'pro' },
  { to: '/organizations', label: 'Organizations and keys', permission: 'ORGANIZATION_READ' },
  { to: '/backups', label: 'Backups', permission: 'BACKUP_READ' },
  { to: '/metrics', label: 'Metrics', permission: 'METRICS_READ' },
  { to: '/plugins', label: 'Plugins', permission: 'PLUGIN_READ' },
  { to: '/webhooks', label: 'Webhooks', permission: 'system:configure', edition: 'pro' },
  { to: '/notifications', label: 'Notifications', permission: 'NOTIFICATION_READ' },
  { to: '/audit', label: 'Audit', permission: 'SYSTEM_MONITOR' },
  { to: '/users', label: 'Users and API keys', permission: 'API_KEY_READ' },
  { to: '/settings', label: 'Settings', permission: 'SETTINGS_READ' },
];

export function Layout({ children }: { children: ReactNode }) {
  const { me, can, signOut } = useSession();
  const navigate = useNavigate();
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Ledger network manager</span>
        <span className="edition" title="Running edition">
          {me.edition}
        </span>
        <div className="user">
          <NavLink to="/account" aria-label={`Account of ${me.username}`}>
            {me.username} <span className="muted">({me.role})</span>
          </NavLink>
          <button
            type="button"
            className="link"
            onClick={async () => {
              await signOut();
              navigate('/');
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidebar" aria-label="Areas">
        <ul>
          {areas
            .filter((a) => can(a.permission))
            .map((a) => (
              <li key={a.to}>
                <NavLink to={a.to} end={a.to === '/'}>
                  {a.label}
                  {a.edition && !editionAtLeast(me.edition, a.edition) ? (
                    <span className="edition-badge" data-testid="edition-badge">
                      <span aria-hidden="true">{a.edition}</span>
                      <span className="sr-only"> (needs the {a.edition} edition)</span>
                    </span>
                  ) : null}
                </NavLink>
              </li>
            ))}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
