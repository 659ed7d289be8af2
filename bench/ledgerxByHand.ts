// The reference for the ledgerX throughput ratio: the same Fabric-X programs started by hand, the
// way ../shared/fabric-x/examples/run-minimal.sh arranges them (one orderer party of four arma
// roles, one shard, TLS off; one committer of five services on a PostgreSQL of its own), with no
// management service in between. Only the ports differ: they are picked free (the script pins
// 7050.. and 7350..), and the operations/metrics ports stay at GRPC + 100 as in the script.
// armageddon (fabric-x-orderer) writes the orderer's crypto material, bootstrap block and local
// configs from the script's deploy-1party.yaml; each arma local config then gets its
// Operations.ListenPort and its store moved into the work directory, as the script's sed lines
// do; the committer configs are the script's yaml files with these ports. PostgreSQL is the
// project's embedded one (a cluster of its own in the work directory) instead of Debian's.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../adapters/postgres/embeddedPostgres.ts';
import { freeGrpcBase } from '../test/helpers/ports.ts';

/** ../shared/fabric-x/config beside the repository: armageddon's --sampleConfigPath. */
export const sampleConfigDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'fabric-x', 'config');

export interface ByHandNetwork {
  work: string;
  channel: string;
  block: string;
  /** armageddon's peer1 client (the sidecar's and loadgen's identity) and its admin (_meta). */
  clientMsp: string;
  adminMsp: string;
  mspId: string;
  sidecarPort: number;
  coordinatorMetricsUrl: string;
  /** role -> pid, in the managed roles' names (router, batcher, consenter, assembler, sidecar, coordinator, vc, verifier, query). */
  pids: Record<string, number>;
  stop(): Promise<void>;
}

const waitPort = async (port: number, what: string, logFile: string, ms = 60_000): Promise<void> => {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    const ok = await new Promise<boolean>((res) => {
      const c = net.connect(port, '127.0.0.1');
      c.once('connect', () => { c.destroy(); res(true); });
      c.once('error', () => res(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-8).join('\n') : '';
  throw new Error(`${what} did not open port ${port} within ${ms / 1000} s; log tail:\n${tail}`);
};

export async function startByHand(bin: string, work: string): Promise<ByHandNetwork> {
  if (!existsSync(sampleConfigDir)) throw new Error(`armageddon's sample config is missing: ${sampleConfigDir}`);
  const o = await freeGrpcBase(4);
  const c = await freeGrpcBase(5);
  mkdirSync(path.join(work, 'logs'), { recursive: true });
  const children: ChildProcess[] = [];
  const pids: Record<string, number> = {};
  let db: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  const start = (role: string, program: string, args: string[]) => {
    const logFile = path.join(work, 'logs', `${role}.log`);
    const fd = openSync(logFile, 'a');
    const child = spawn(program, args, { cwd: work, stdio: ['ignore', fd, fd] });
    children.push(child);
    pids[role] = child.pid as number;
    return logFile;
  };
  const stop = async () => {
    for (const ch of children.reverse()) if (ch.exitCode === null) ch.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    for (const ch of children) if (ch.exitCode === null) ch.kill('SIGKILL');
    await db?.stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  };
  try {
    // 1. Orderer: armageddon's material from the script's deploy-1party.yaml (ports changed).
    writeFileSync(path.join(work, 'deploy-1party.yaml'), [
      'Parties:', '  - ID: 1', `    RouterEndpoint: "127.0.0.1:${o}"`, '    BatchersEndpoints:', `      - "127.0.0.1:${o + 1}"`,
      `    ConsenterEndpoint: "127.0.0.1:${o + 2}"`, `    AssemblerEndpoint: "127.0.0.1:${o + 3}"`, 'UseTLSRouter: "none"', 'UseTLSAssembler: "none"', '',
    ].join('\n'));
    const ord = path.join(work, 'orderer');
    await promisify(execFile)(path.join(bin, 'armageddon'), ['generate', `--config=${path.join(work, 'deploy-1party.yaml')}`, `--output=${ord}`, `--sampleConfigPath=${sampleConfigDir}`], { timeout: 60_000 });
    const party = path.join(ord, 'config', 'party1');
    for (const [file, port] of [['router', o + 100], ['batcher1', o + 101], ['consenter', o + 102], ['assembler', o + 103]] as const) {
      const f = path.join(party, `local_config_${file}.yaml`);
      const text = readFileSync(f, 'utf8')
        .replace(/^(Operations:\n( +)ListenAddress: .*)$/m, (_m, head: string, indent: string) => `${head}\n${indent}ListenPort: ${port}`)
        .replaceAll('/var/dec-trust/production/orderer/store', path.join(work, 'store', file));
      if (!text.includes(`ListenPort: ${port}`)) throw new Error(`could not pin Operations.ListenPort in ${f}`);
      writeFileSync(f, text);
    }
    // The script's order: consensus, batcher, assembler, router (it sleeps 2 s after each).
    for (const [role, cmd, file, port] of [['consenter', 'consensus', 'consenter', o + 2], ['batcher', 'batcher', 'batcher1', o + 1], ['assembler', 'assembler', 'assembler', o + 3], ['router', 'router', 'router', o]] as const) {
      const logFile = start(role, path.join(bin, 'arma'), [cmd, `--config=${path.join(party, `local_config_${file}.yaml`)}`]);
      await waitPort(port, `arma ${cmd}`, logFile);
    }
    // 2. PostgreSQL with the script's user and database.
    db = await startEmbeddedPostgres({ dir: path.join(work, 'pg') });
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query("CREATE USER fabricx WITH PASSWORD 'fabricx'");
    await admin.query('CREATE DATABASE fabricx OWNER fabricx');
    await admin.end();
    // 3. Committer: the script's yaml files with these ports.
    const database = ['database:', '  endpoints:', `    - 127.0.0.1:${db.port}`, '  username: fabricx', '  password: fabricx', '  database: fabricx', '  load-balance: false'];
    const serve = (i: number) => [`server:\n  endpoint: 127.0.0.1:${c + i}`, `monitoring:\n  endpoint: 127.0.0.1:${c + 100 + i}`];
    const clientMsp = path.join(ord, 'crypto', 'peerOrganizations', 'peer1', 'users', 'client@peer1', 'msp');
    const block = path.join(ord, 'bootstrap', 'bootstrap.block');
    const configs: Record<string, string[]> = {
      vc: [...serve(2), ...database],
      verifier: serve(3),
      query: [...serve(4), ...database],
      coordinator: [...serve(1), 'verifier:', '  endpoints:', `    - 127.0.0.1:${c + 3}`, 'validator-committer:', '  endpoints:', `    - 127.0.0.1:${c + 2}`],
      sidecar: [...serve(0), 'orderer:', '  fault-tolerance-level: BFT', `  latest-known-config-block-path: ${block}`, '  identity:', '    msp-id: peer1', `    msp-dir: ${clientMsp}`, 'committer:', `  endpoint: 127.0.0.1:${c + 1}`, 'ledger:', `  path: ${path.join(work, 'committer-ledger')}`],
    };
    mkdirSync(path.join(work, 'committer'));
    const port: Record<string, number> = { sidecar: c, coordinator: c + 1, vc: c + 2, verifier: c + 3, query: c + 4 };
    for (const s of ['vc', 'verifier', 'query', 'coordinator', 'sidecar']) {
      const f = path.join(work, 'committer', `${s}.yaml`);
      writeFileSync(f, [...configs[s], 'logging:\n  logSpec: info', ''].join('\n'));
      const logFile = start(s, path.join(bin, 'committer'), ['start', s, `--config=${f}`]);
      await waitPort(port[s], `committer ${s}`, logFile);
    }
    return {
      work,
      channel: 'arma',
      block,
      clientMsp,
      adminMsp: path.join(ord, 'crypto', 'peerOrganizations', 'peer1', 'users', 'Admin@peer1', 'msp'),
      mspId: 'peer1',
      sidecarPort: c,
      coordinatorMetricsUrl: `http://127.0.0.1:${c + 101}/metrics`,
      pids,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
