// Signed out: the sign-in page, whatever the URL. Signed in: the layout and the page of the URL,
// each area loaded on demand (React.lazy) so the first page stays small.
import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { SessionProvider, useMe } from './session';
import { Layout } from './Layout';
import { Login } from './pages/Login';
import { ErrorState, Loading } from './components/states';

const Dashboard = lazy(() => import('./pages/Dashboard'));
const Nodes = lazy(() => import('./pages/nodes/Nodes'));
const NodeDetail = lazy(() => import('./pages/nodes/NodeDetail'));
const Hosts = lazy(() => import('./pages/hosts/Hosts'));
const Networks = lazy(() => import('./pages/networks/Networks'));
const EvmNetworkCreate = lazy(() => import('./pages/networks/EvmNetworkCreate'));
const NetworkImport = lazy(() => import('./pages/networks/NetworkImport'));
const EvmNetworkDetail = lazy(() => import('./pages/networks/EvmNetworkDetail'));
const ConsortiumNetworkCreate = lazy(() => import('./pages/networks/ConsortiumNetworkCreate'));
const ConsortiumNetworkDetail = lazy(() => import('./pages/networks/ConsortiumNetworkDetail'));
const ConsortiumQuickStart = lazy(() => import('./pages/networks/ConsortiumQuickStart'));
const LedgerXNetworkCreate = lazy(() => import('./pages/ledgerx/LedgerXNetworkCreate'));
const LedgerXQuickStart = lazy(() => import('./pages/ledgerx/LedgerXQuickStart'));
const LedgerXNetworkDetail = lazy(() => import('./pages/ledgerx/LedgerXNetworkDetail'));
const Audit = lazy(() => import('./pages/audit/Audit'));
const Webhooks = lazy(() => import('./pages/webhooks/Webhooks'));
const WebhookDetail = lazy(() => import('./pages/webhooks/WebhookDetail'));
const Account = lazy(() => import('./pages/Account'));
const Backups = lazy(() => import('./pages/backups/Backups'));
const Plugins = lazy(() => import('./pages/plugins/Plugins'));
const PluginDetail = lazy(() => import('./pages/plugins/PluginDetail'));
const Templates = lazy(() => import('./pages/templates/Templates'));
const Sharing = lazy(() => import('./pages/sharing/Sharing'));
const ProposalDetail = lazy(() => import('./pages/sharing/ProposalDetail'));
const Notifications = lazy(() => import('./pages/notifications/Notifications'));
const Organizations = lazy(() => import('./pages/keys/Organizations'));
const OrganizationDetail = lazy(() => import('./pages/keys/OrganizationDetail'));
const Users = lazy(() => import('./pages/users/Users'));
const Settings = lazy(() => import('./pages/settings/Settings'));
const MetricsStack = lazy(() => import('./pages/metrics/MetricsStack'));

export function App() {
  const me = useMe();
  if (me.isPending) return <Loading what="Checking your session" />;
  // A failed refresh of the session keeps the signed-in app (QueryView's rule); a first failure is the error.
  if (me.error && me.data === undefined) return <main className="centered"><ErrorState error={me.error} retry={() => me.refetch()} /></main>;
  if (!me.data) return <Login />;
  return (
    <SessionProvider me={me.data}>
      <Layout>
        <Suspense fallback={<Loading what="Loading page" />}>
          <Routes>
            <Route path="/" element={<Dashboard />} />
            <Route path="/nodes" element={<Nodes />} />
            <Route path="/nodes/:id" element={<NodeDetail />} />
            <Route path="/hosts" element={<Hosts />} />
            <Route path="/networks" element={<Networks />} />
            <Route path="/networks/import" element={<NetworkImport />} />
            <Route path="/networks/evm/new" element={<EvmNetworkCreate />} />
            <Route path="/networks/evm/:id" element={<EvmNetworkDetail />} />
            <Route path="/networks/consortium/new" element={<ConsortiumNetworkCreate />} />
            <Route path="/networks/consortium/quick-start" element={<ConsortiumQuickStart />} />
            <Route path="/networks/consortium/:id" element={<ConsortiumNetworkDetail />} />
            <Route path="/networks/ledgerx/new" element={<LedgerXNetworkCreate />} />
            <Route path="/networks/ledgerx/quick-start" element={<LedgerXQuickStart />} />
            <Route path="/networks/ledgerx/quick-start/:id" element={<LedgerXQuickStart />} />
            <Route path="/networks/ledgerx/:id" element={<LedgerXNetworkDetail />} />
            <Route path="/audit" element={<Audit />} />
            <Route path="/webhooks" element={<Webhooks />} />
            <Route path="/webhooks/:id" element={<WebhookDetail />} />
            <Route path="/account" element={<Account />} />
            <Route path="/backups" element={<Backups />} />
            <Route path="/plugins" element={<Plugins />} />
            <Route path="/plugins/:name" element={<PluginDetail />} />
            <Route path="/notifications" element={<Notifications />} />
            <Route path="/templates" element={<Templates />} />
            <Route path="/sharing" element={<Sharing />} />
            <Route path="/sharing/proposals/:id" element={<ProposalDetail />} />
            <Route path="/organizations" element={<Organizations />} />
            <Route path="/organizations/:id" element={<OrganizationDetail />} />
            <Route path="/users" element={<Users />} />
            <Route path="/settings" element={<Settings />} />
            <Route path="/metrics" element={<MetricsStack />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </Layout>
    </SessionProvider>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>The console has no page at this address.</p>
    </section>
  );
}
