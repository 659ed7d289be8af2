// The console session of a suite on real Fabric, one way for all of them: started before the
// suite on a server of the suite's environment (consortiumEnv, fabric31.env, ...); after it, every
// consortium node removed (their directories gone), the suite's own clean-up (a second instance,
// a host, containers), the browser and the server closed, and any node process still running from
// the server's data directory killed, so no Fabric process outlives the suite.
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, removeConsortiumNodes } from '../consortium/consortiumApi.ts';

interface Hooks {
  before: (f: () => Promise<void>) => void;
  after: (f: () => Promise<void>) => void;
}

/**
 * Registers the suite's before and after hooks; `started` receives the session (the suite keeps
 * its server and page), `cleanUp` runs after the nodes are removed and before the session closes.
 */
export function fabricConsoleSession(t: Hooks, env: () => Record<string, string>, started: (s: { ui: ConsoleSession; server: TestServer; page: Page }) => void, cleanUp?: () => Promise<void>): void {
  let ui: ConsoleSession | undefined;
  t.before(async () => {
    ui = await startConsoleSession({ server: { env: env() } });
    started({ ui, server: ui.server, page: ui.page });
  });
  t.after(async () => {
    if (!ui) return;
    const server = ui.server;
    await removeConsortiumNodes(apiOf(() => server), server.dataDir);
    await cleanUp?.();
    await ui.close();
    server.reapNodes();
  });
}
