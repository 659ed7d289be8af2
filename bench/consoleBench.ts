// The web console in the same Chromium the browser tests use (Debian's, through playwright-core):
// how much JavaScript the first page loads (gzipped, as served), the bundle in all, the time from
// navigation to the dashboard drawn, to the node list drawn with 1,000 nodes, and to the audit
// table's first and last pages drawn over the server's own audit log (100,000 entries in the
// full bench run: the server pages).
// The 1,000 nodes are answered by the browser itself (page.route) so that the figure is the
// console's own fetch-and-draw of a list that large, not the time to create 1,000 real nodes.
import { chromium, type Page } from 'playwright-core';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { buildConsole, webDir } from '../web/scripts/build.ts';
import { CHROMIUM_ARGS, chromiumMissing, chromiumPath } from '../test/helpers/browser.ts';
import type { ServerProcess } from './lib/serverProcess.ts';
import { percentile, round } from './lib/stats.ts';

export const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

export interface ConsoleFigures {
  firstPageJsGzipKb: number;
  firstPageJsFiles: number;
  bundleJsGzipKb: number;
  bundleJsFiles: number;
  dashboardColdMs: number;
  dashboardWarmMs: number[];
  nodes1000Ms: number[];
  auditEntries: number;
  auditFirstPageMs: number[];
  auditLastPageMs: number[];
}

export { chromiumMissing };

// Page functions run in the browser; the project's tsconfig has no DOM library.
declare const document: { querySelector(s: string): { textContent: string | null } | null; body: { textContent: string | null } };
declare const performance: { now(): number };

async function dashboardDrawn(page: Page): Promise<number> {
  const h = await page.waitForFunction(
    () => {
      const text = document.body.textContent ?? '';
      const drawn = document.querySelector('h1')?.textContent === 'Dashboard' && !document.querySelector('.loading') && (document.querySelector('[data-testid="node-total"]') || text.includes('No nodes yet'));
      return drawn ? performance.now() : false;
    },
    null,
    { polling: 'raf', timeout: 30_000 },
  );
  return round((await h.jsonValue()) as number, 1);
}

function fakeNodes(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1, name: `bench-node-${i + 1}`, platform: i % 3 === 0 ? 'CONSORTIUM' : 'EVM', nodeType: 'EVM_NODE', role: 'validator', status: i % 7 === 0 ? 'stopped' : 'running',
    block_height: 1000 + i, peer_count: 3, last_probe: null, uptime_seconds: 100, client: 'anvil', engine: 'process', network_id: 1 + (i % 10),
    endpoints: { rpc_http: null, rpc_ws: null, p2p: null, metrics: null }, enode: null, validator_address: null, config: {}, error: null, started_at: null, created_at: new Date().toISOString(), updated_at: new Date().toISOString(),
  }));
}

export async function consoleBench(server: ServerProcess, cookie: string): Promise<ConsoleFigures> {
  await buildConsole({ quiet: true });
  const assets = path.join(webDir, 'dist', 'assets');
  const bundle = readdirSync(assets).filter((f) => f.endsWith('.js'));
  const bundleJsGzip = bundle.reduce((s, f) => s + gzipSync(readFileSync(path.join(assets, f))).length, 0);

  const profile = mkdtempSync(path.join(os.tmpdir(), 'lnm-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 860 } });
  try {
    const [name, ...rest] = cookie.split('=');
    await context.addCookies([{ name, value: rest.join('='), url: server.url }]);
    const page = context.pages()[0] ?? (await context.newPage());
    const js = new Map<string, number>();
    page.on('response', (r) => {
      if (r.url().endsWith('.js')) void r.body().then((b) => js.set(r.url(), gzipSync(b).length)).catch(() => undefined);
    });
    await page.goto(server.url + '/');
    const dashboardColdMs = await dashboardDrawn(page);
    await page.waitForLoadState('networkidle');
    const firstPageJs = [...js.values()].reduce((a, b) => a + b, 0);
    const firstPageJsFiles = js.size;

    const dashboardWarmMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.goto(server.url + '/');
      dashboardWarmMs.push(await dashboardDrawn(page));
    }

    const nodes = fakeNodes(1000);
    await page.route('**/api/v1/nodes?*', (route) => {
      const u = new URL(route.request().url());
      const limit = Number(u.searchParams.get('limit') ?? 50);
      const offset = Number(u.searchParams.get('offset') ?? 0);
      return route.fulfill({ json: { items: nodes.slice(offset, offset + limit), total: nodes.length, limit, offset } });
    });
    const nodes1000Ms: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.goto(server.url + '/nodes');
      const h = await page.waitForFunction(
        () => ((document.querySelector('.pager')?.textContent ?? '').includes('(1000 in all)') && document.querySelector('[data-node="bench-node-50"]') ? performance.now() : false),
        null,
        { polling: 'raf', timeout: 30_000 },
      );
      nodes1000Ms.push(round((await h.jsonValue()) as number, 1));
    }
    await page.unroute('**/api/v1/nodes?*');

    // The audit table, paged by the server: its first page, and its last (the largest offset).
    const auditFirstPageMs: number[] = [];
    const auditLastPageMs: number[] = [];
    let auditEntries = 0;
    const auditDrawn = async (pageNo: number | null) => {
      const h = await page.waitForFunction(
        (n) => {
          const pager = document.querySelector('.pager')?.textContent ?? '';
          const m = /Page (\d+) of (\d+) \((\d+) in all\)/.exec(pager);
          const rows = document.querySelector('table tbody tr');
          return m && rows && (n === null ? m[1] === '1' : m[1] === m[2]) ? [performance.now(), Number(m[3])] : false;
        },
        pageNo,
        { polling: 'raf', timeout: 30_000 },
      );
      const [ms, total] = (await h.jsonValue()) as [number, number];
      auditEntries = total;
      return round(ms, 1);
    };
    await page.goto(server.url + '/audit');
    await auditDrawn(null);
    const last = Math.max(0, (Math.ceil(auditEntries / 50) - 1) * 50);
    for (let i = 0; i < 5; i++) {
      await page.goto(server.url + '/audit');
      auditFirstPageMs.push(await auditDrawn(null));
      await page.goto(`${server.url}/audit?offset=${last}`);
      auditLastPageMs.push(await auditDrawn(1));
    }
    return {
      auditEntries,
      auditFirstPageMs,
      auditLastPageMs,
      firstPageJsGzipKb: round(firstPageJs / 1024, 1),
      firstPageJsFiles,
      bundleJsGzipKb: round(bundleJsGzip / 1024, 1),
      bundleJsFiles: bundle.length,
      dashboardColdMs,
      dashboardWarmMs,
      nodes1000Ms,
    };
  } finally {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
}
