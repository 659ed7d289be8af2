// One console browser test's session: the console built, the real server started (or one the
// test started itself), Debian's Chromium launched with a fresh profile (browser.ts), and the
// page helpers every console test needs: sign in and out, the navigation links, and axe's
// serious/critical check. One copy of what each console test file used to repeat.
//
//   let c: ConsoleSession;
//   t.before(async () => { c = await startConsoleSession({ server: { env: consortiumEnv() } }); await c.signIn(); });
//   t.after(async () => { await c?.close(); });
//
// Stable for other branches: add options, do not change what these do.
import * as assert from 'uvu/assert';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { startServer, ADMIN, type StartOptions, type TestServer } from './server.ts';
import { axeViolations, describeViolations, launchBrowser } from './browser.ts';
import { buildConsole } from '../../web/scripts/build.ts';

export interface Credentials {
  username: string;
  password: string;
}

export interface SignInOptions {
  /** The server whose console to sign in to (default: the session's server), e.g. a second instance. */
  url?: string;
  /** The console address to open before signing in (default '/'); the console stays there after. */
  path?: string;
  /** The level-1-or-any heading (exact name) that shows the signed-in page (default 'Dashboard'). */
  heading?: string;
  /** The heading's level when the name alone is ambiguous. */
  level?: number;
}

export interface ConsoleSession {
  /** The server this session started, or the one it was given. */
  server: TestServer;
  context: BrowserContext;
  page: Page;
  /** Opens the console (path, default '/') and signs in (default: the first ADMIN), signing out whoever is signed in first; waits for the page's heading. */
  signIn(user?: Credentials, opts?: SignInOptions): Promise<void>;
  /** Signs out with the shell's button; waits for the sign-in form. */
  signOut(): Promise<void>;
  /** A link of the console's "Areas" navigation, by its exact name. */
  nav(name: string): Locator;
  /** axe over the page as shown; fails, naming `what`, on serious or critical violations. */
  accessible(what: string): Promise<void>;
  /** Closes the browser, then stops the server if this session started it. */
  close(): Promise<void>;
}

export interface ConsoleSessionOptions {
  /** Options of the server to start (default: a fresh database), or a server the test started (then its stop is the test's). */
  server?: StartOptions | TestServer;
  /** Sign in once the browser is up: true for the first ADMIN, or these credentials (default: stay signed out). */
  signIn?: boolean | Credentials;
}

const isServer = (s: StartOptions | TestServer | undefined): s is TestServer => !!s && 'api' in s && 'child' in s;

/** Builds the console (a no-op when it is current), starts or takes the server, launches Chromium. */
export async function startConsoleSession(opts: ConsoleSessionOptions = {}): Promise<ConsoleSession> {
  await buildConsole({ quiet: true });
  const own = !isServer(opts.server);
  const server = isServer(opts.server) ? opts.server : await startServer(opts.server as StartOptions | undefined);
  let context: BrowserContext;
  try {
    context = await launchBrowser();
  } catch (e) {
    if (own) await server.stop();
    throw e;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const session: ConsoleSession = {
    server,
    context,
    page,
    async signIn(user = ADMIN, o = {}) {
      await page.goto((o.url ?? server.url) + (o.path ?? '/'));
      // Someone still signed in (a test switching users): sign them out first.
      const out = page.getByRole('button', { name: 'Sign out' });
      await out.or(page.getByLabel('Username')).first().waitFor();
      if (await out.isVisible()) await out.click();
      await page.getByLabel('Username').fill(user.username);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: o.heading ?? 'Dashboard', exact: true, ...(o.level ? { level: o.level } : {}) }).waitFor();
    },
    async signOut() {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    },
    nav: (name) => page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name, exact: true }),
    async accessible(what) {
      const v = await axeViolations(page);
      assert.is(v.length, 0, `${what}: ${describeViolations(v)}`);
    },
    async close() {
      await context.close().catch(() => undefined);
      if (own) await server.stop();
    },
  };
  if (opts.signIn) await session.signIn(opts.signIn === true ? ADMIN : opts.signIn);
  return session;
}

/** A plugin descriptor as an operator would paste it into the console's YAML editor: one nginx service, no parameters. */
export const pluginYaml = (name: string, description: string) => `apiVersion: dev.platform/v1
kind: Plugin
metadata:
  name: ${name}
  version: 1.0.0
  description: ${description}
spec:
  dockerCompose:
    contents: |
      services:
        app:
          image: nginx:alpine
  parameters:
    type: object
    properties: {}
`;
