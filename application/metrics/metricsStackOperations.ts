// The managed metrics stack's operations and status, wherever the request lands. Prometheus runs
// on one instance only: the holder of the `work:metrics-stack` lease (sagas/workPieces.ts). On
// that instance an operation acts on the engine, then records its event (as with one instance);
// on any other it records the event (after the same checks) and waits until the holder has
// applied it and published what it sees (bin/metricsStack.ts reconciles the engine with the
// stream as soon as the holder's projector has the event). GET /metrics/status answers the holder's view from every instance.
import type { CommandInput } from '../commands.ts';
import { runCommand } from '../commands.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { UnavailableError } from '../../domain/shared/errors.ts';
import { METRICS_STACK_STREAM, metricsStack, type MetricsStackCommand, type MetricsStackSettings, type MetricsStackState } from '../../domain/metrics/metricsStack.ts';
import type { MetricsStackDeps } from '../../domain/metrics/metricsStackPorts.ts';
import type { AppDeps } from '../deps.ts';

/** How long an operation taken by another instance waits for the holder to apply it. */
const APPLIED_WAIT_MS = 45_000;

export function metricsStackOf(deps: AppDeps): MetricsStackDeps {
  if (!deps.metricsStack) throw new UnavailableError('The metrics stack is not available on this server.');
  return deps.metricsStack;
}

export async function metricsStackState(deps: AppDeps): Promise<{ state: MetricsStackState; version: number }> {
  return loadState(deps.store, METRICS_STACK_STREAM, metricsStack);
}

const NO_TARGETS = { up: 0, down: 0, unknown: 0, total: 0 };

/** The status as this instance's engine and Prometheus see it (on the holder). */
export async function liveStatusView(stack: MetricsStackDeps, state: MetricsStackState): Promise<Record<string, unknown>> {
  if (state.status === 'not_deployed') return { deployed: false, status: 'not_deployed', running: false, settings: null, url: null, version: null, deployedAt: null, targets: NO_TARGETS, lastScrapeErrors: [] };
  const s = state.settings;
  const engine = await stack.status(s);
  const running = engine.state === 'running';
  const base = { deployed: true, status: engine.state, running, settings: s, url: stack.url(s), deployedAt: state.deployedAt };
  if (!running) return { ...base, version: null, targets: NO_TARGETS, lastScrapeErrors: [], ...(engine.reason ? { error: engine.reason } : {}) };
  try {
    const [version, targets] = await Promise.all([stack.version(s), stack.targets(s)]);
    const count = (h: string) => targets.filter((t) => t.health === h).length;
    return { ...base, version, targets: { up: count('up'), down: count('down'), unknown: count('unknown'), total: targets.length }, lastScrapeErrors: targets.filter((t) => t.lastError) };
  } catch (err) {
    return { ...base, version: null, targets: NO_TARGETS, lastScrapeErrors: [], error: (err as Error).message };
  }
}

/** GET /metrics/status from any instance: the holder's view, with the instance that runs it. */
export async function metricsStackStatus(deps: AppDeps): Promise<Record<string, unknown>> {
  const stack = metricsStackOf(deps);
  const [{ state }, owner] = await Promise.all([metricsStackState(deps), stack.owner()]);
  if (owner.here) return { ...(await liveStatusView(stack, state)), instance: owner.instance };
  if (state.status === 'not_deployed') return { ...(await liveStatusView(stack, state)), instance: owner.instance };
  const report = await stack.reported();
  if (report && report.instance === owner.instance) return { ...report.view, instance: report.instance };
  const s = state.settings;
  return {
    deployed: true, status: 'unknown', running: false, settings: s, url: stack.url(s), version: null, deployedAt: state.deployedAt, targets: NO_TARGETS, lastScrapeErrors: [], instance: owner.instance,
    error: owner.instance ? `instance ${owner.instance} runs the metrics stack and has not reported what it sees yet` : 'no instance holds the metrics stack now: a live instance takes it within the failover bound (docs/scaling.md)',
  };
}

/** On another instance than the holder: waits until the holder has applied `version` of the stream (or the wait runs out). */
async function appliedByHolder(stack: MetricsStackDeps, version: number): Promise<void> {
  const end = Date.now() + APPLIED_WAIT_MS;
  while (Date.now() < end) {
    const [owner, report] = await Promise.all([stack.owner(), stack.reported()]);
    if (owner.here) return;
    if (owner.instance && report && report.instance === owner.instance && report.version >= version) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function assertAvailable(stack: MetricsStackDeps, engine: MetricsStackSettings['engine']) {
  const a = await stack.available(engine);
  if (!a.ok) throw new UnavailableError(`Prometheus cannot run here: ${a.reason}.`, { needs: a.what, engine });
}

/**
 * Runs an operation: on the holder, `effect` on the engine and then the event (an effect that
 * fails records nothing); elsewhere the event, then the wait for the holder. Checks first that
 * the command would be accepted now (409 otherwise) and, for deploy and start, that Prometheus
 * can run (503 otherwise).
 */
export async function operateMetricsStack(input: CommandInput, command: MetricsStackCommand | ((state: MetricsStackState) => Promise<MetricsStackCommand>), effect: (stack: MetricsStackDeps, s: MetricsStackSettings) => Promise<void>): Promise<Record<string, unknown>> {
  const stack = metricsStackOf(input.deps);
  const act = async (here: boolean) => {
    const { state } = await metricsStackState(input.deps);
    const c = typeof command === 'function' ? await command(state) : command;
    metricsStack.decide(c, state); // a 409 when the stack is not in a state for it
    const settings = c.type === 'DeployMetricsStack' ? c.settings : state.status === 'not_deployed' ? null : state.settings;
    if (!settings) return 0;
    if (c.type === 'DeployMetricsStack' || c.type === 'StartMetricsStack') await assertAvailable(stack, settings.engine);
    if (here) await effect(stack, settings);
    try {
      return (await runCommand(input, METRICS_STACK_STREAM, metricsStack, c)).version;
    } catch (err) {
      if (here && c.type === 'DeployMetricsStack') await stack.remove(settings).catch(() => undefined);
      throw err;
    }
  };
  if ((await stack.owner()).here) await stack.alone(() => act(true));
  else await appliedByHolder(stack, await act(false));
  return metricsStackStatus(input.deps);
}
