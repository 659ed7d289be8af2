// Plugins (SPEC Plugins): descriptors installed from YAML or JSON and checked with ajv, deployed
// with Docker Compose (one project per plugin), stopped and resumed. Events PluginInstalled,
// PluginUpdated, PluginEnabled (plugin.enabled), PluginDisabled (plugin.disabled), PluginRemoved.
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteInput } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import type { AppDeps } from '../../application/deps.ts';
import { AppError, NotFoundError, UnavailableError, ValidationError, ConflictError } from '../../domain/shared/errors.ts';
import { plugin, pluginStream, type PluginCommand } from '../../domain/plugins/plugin.ts';
import { checkPluginParameters, parsePluginDescriptor } from '../../domain/plugins/pluginDescriptor.ts';
import { resolveSources, writeSourceFiles } from '../plugins/pluginSources.ts';
import { renderCompose } from '../../domain/plugins/pluginTemplate.ts';
import type { PluginRuntime } from '../../domain/plugins/pluginPorts.ts';
import { getPlugin, listPlugins, type PluginRow } from '../../projections/plugins.ts';

const tags = ['plugins'];
const NAME = '^[a-z0-9][a-z0-9-]{0,62}$';
const NameParam = Type.Object({ name: Type.String({ pattern: NAME, maxLength: 63, description: 'metadata.name of the descriptor' }) }, { additionalProperties: false });
const DescriptorBody = Type.Object({
  descriptor: Type.Union([Type.String({ minLength: 1, maxLength: 500_000, description: 'YAML or JSON text' }), Type.Object({}, { additionalProperties: true, description: 'the descriptor as a JSON object' })]),
}, { additionalProperties: false });
const Service = Type.Object({ service: Type.String(), state: Type.String(), status: Type.String(), containerId: Type.String() });
const ServiceLogs = Type.Intersect([Service, Type.Object({ lines: Type.Array(Type.String(), { description: 'oldest first; key material masked' }) })]);
const PluginSummary = Type.Object({
  name: Type.String(), type: Type.String({ description: 'descriptor' }), status: Type.String({ description: 'installed (never deployed), enabled (deployed) or disabled (stopped)' }), enabled: Type.Boolean(),
  version: Type.Union([Type.String(), Type.Null()]), description: Type.Union([Type.String(), Type.Null()]), installedAt: Type.String(), updatedAt: Type.String(),
});
const PluginView = Type.Intersect([PluginSummary, Type.Object({
  descriptor: Type.Unknown(), parameters: Type.Unknown(),
  services: Type.Union([Type.Array(Service), Type.Null()], { description: 'per-service container state from the Docker Engine; null when it cannot be asked' }),
})]);

const summary = (p: PluginRow) => ({ name: p.name, type: 'descriptor', status: p.status, enabled: p.status === 'enabled', version: p.descriptor.metadata.version ?? null, description: p.descriptor.metadata.description ?? null, installedAt: p.installedAt, updatedAt: p.updatedAt });

function runtimeOf(deps: AppDeps): PluginRuntime {
  if (!deps.plugins) throw new UnavailableError('Plugins are not available on this server.');
  return deps.plugins;
}

async function view(deps: AppDeps, name: string) {
  const p = await getPlugin(deps.pool, name);
  if (!p) throw new NotFoundError('Plugin', name);
  const services = deps.plugins ? await deps.plugins.services(name).catch(() => null) : null;
  return { ...summary(p), descriptor: p.descriptor, parameters: p.parameters, services };
}

async function pluginOr404(deps: AppDeps, name: string): Promise<PluginRow> {
  const p = await getPlugin(deps.pool, name);
  if (!p) throw new NotFoundError('Plugin', name);
  return p;
}

async function assertRunnable(runtime: PluginRuntime) {
  const why = await runtime.unavailable();
  if (why) throw new UnavailableError(`Plugins cannot be deployed here: ${why}.`);
}

const record = (input: RouteInput<unknown, unknown, unknown>, name: string, command: PluginCommand) => runCommand(input, pluginStream(name), plugin, command);

/**
 * One service of a deployed plugin, followed live (GET /plugins/{name}/logs?service= with a
 * WebSocket upgrade, http/nodeLogsSocket.ts): the same refusals as the route's (404 not installed
 * or no such service, 409 never deployed, 503 without a Docker Engine).
 */
export async function pluginLogFollower(deps: AppDeps, name: string, service: string | null): Promise<{ follow(onLine: (line: string) => void, tail: number): Promise<{ close(): void }> }> {
  const p = await pluginOr404(deps, name);
  if (p.status === 'installed') throw new ConflictError(`Plugin ${p.name} has not been deployed: it has no containers and no logs.`, { name: p.name, status: p.status });
  if (!service || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/.test(service)) throw new ValidationError('Name the service to follow: ?service=<a service of its compose file>.', [{ field: 'service', message: 'is required to follow' }]);
  const runtime = runtimeOf(deps);
  const why = await runtime.unavailable();
  if (why) throw new UnavailableError(`Plugin logs cannot be read here: ${why}.`);
  // Refused before the upgrade, like a missing node: a service without a container is a 404.
  const services = await runtime.services(p.name).catch((err: unknown) => {
    throw err instanceof AppError ? err : new UnavailableError(`The Docker Engine did not list plugin ${p.name}'s containers: ${(err as Error).message}`);
  });
  if (!services.some((x) => x.service === service)) throw new NotFoundError('Plugin service', `${p.name}/${service}`);
  return { follow: (onLine, tail) => runtime.followLogs(p.name, service, onLine, tail) };
}

export const pluginRoutes = [
  defineRoute({
    method: 'get', path: '/plugins', summary: 'Installed plugins', tags, permission: 'PLUGIN_READ',
    query: Type.Object({ ...PageQuery }, { additionalProperties: false }),
    responses: { 200: { description: 'plugins', schema: Page(PluginSummary) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listPlugins(deps.pool, limit, offset);
      return { body: page(r.items.map(summary), r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'get', path: '/plugins/available', summary: 'Descriptors shipped with the service, ready to install', tags, permission: 'PLUGIN_READ',
    responses: { 200: { description: 'descriptors', schema: Type.Object({ items: Type.Array(Type.Object({ name: Type.String(), version: Type.Union([Type.String(), Type.Null()]), description: Type.Union([Type.String(), Type.Null()]), installed: Type.Boolean(), descriptor: Type.String({ description: 'the YAML text: POST /plugins {descriptor} installs it' }) })) }) } },
    async handler({ deps }) {
      const items = [];
      for (const f of await runtimeOf(deps).shipped()) {
        const d = parsePluginDescriptor(f.text);
        items.push({ name: d.metadata.name, version: d.metadata.version ?? null, description: d.metadata.description ?? null, installed: (await getPlugin(deps.pool, d.metadata.name)) !== null, descriptor: f.text });
      }
      return { body: { items } };
    },
  }),
  defineRoute({
    method: 'post', path: '/plugins', summary: 'Install a plugin from its descriptor (YAML or JSON)', tags, permission: 'PLUGIN_INSTALL',
    description: 'The descriptor is checked with ajv (apiVersion dev.platform/v1, kind Plugin, metadata.name, spec.dockerCompose.contents, spec.parameters a JSON Schema draft-07 object whose x-source values are consortium-key or consortium-peer); placeholders other than .parameters.<declared field> and range .volumeMounts (.Source, .Target, if .ReadOnly) are refused, and so is a placeholder outside a value (a key, tag or anchor). The compose text may not ask for what makes a container root on the host or reach outside the plugin (privileged, cap_add, devices, security_opt, host pid/ipc/uts/cgroup namespaces, another container\'s network, build, env_file, host-path volumes other than the service\'s own mount, volume driver options, external volumes, top-level secrets/configs/include; see docs/security.md): refused for every installer. Patterns of spec.parameters must be RE2 syntax (no lookaround, no backreferences). Every problem is a 400 naming its field. Records plugin.installed.',
    body: DescriptorBody,
    responses: { 201: { description: 'installed', schema: PluginView }, 409: { description: 'a plugin of that name is installed' } },
    async handler(input) {
      const d = parsePluginDescriptor(input.body.descriptor);
      await record(input, d.metadata.name, { type: 'InstallPlugin', descriptor: d, at: input.deps.clock().toISOString() });
      return { status: 201, body: await view(input.deps, d.metadata.name) };
    },
  }),
  defineRoute({
    method: 'get', path: '/plugins/:name', summary: 'A plugin: descriptor, last parameters, status and per-service state', tags, permission: 'PLUGIN_READ',
    params: NameParam,
    responses: { 200: { description: 'plugin', schema: PluginView }, 404: { description: 'not installed' } },
    async handler({ deps, params }) {
      return { body: await view(deps, params.name) };
    },
  }),
  defineRoute({
    method: 'put', path: '/plugins/:name', summary: 'Replace a (not running) plugin\'s descriptor', tags, permission: 'PLUGIN_INSTALL',
    params: NameParam, body: DescriptorBody,
    responses: { 200: { description: 'updated', schema: PluginView }, 404: { description: 'not installed' }, 409: { description: 'it is deployed: stop it first' } },
    async handler(input) {
      const d = parsePluginDescriptor(input.body.descriptor);
      if (d.metadata.name !== input.params.name) throw new ValidationError('metadata.name must be the plugin\'s name.', [{ field: 'metadata.name', message: `must be ${input.params.name}` }]);
      await record(input, d.metadata.name, { type: 'UpdatePlugin', descriptor: d, at: input.deps.clock().toISOString() });
      return { body: await view(input.deps, d.metadata.name) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/plugins/:name', summary: 'Remove a plugin: its containers, volumes and files', tags, permission: 'PLUGIN_INSTALL',
    params: NameParam,
    responses: { 204: { description: 'removed' }, 404: { description: 'not installed' } },
    async handler(input) {
      await pluginOr404(input.deps, input.params.name);
      await runtimeOf(input.deps).remove(input.params.name);
      await record(input, input.params.name, { type: 'RemovePlugin', name: input.params.name, at: input.deps.clock().toISOString() });
    },
  }),
  defineRoute({
    method: 'post', path: '/plugins/:name/deploy', summary: 'Deploy a plugin with parameters (Docker Compose)', tags, permission: 'PLUGIN_OPERATE',
    description: 'x-source parameters are resolved first: consortium-peer takes peer node ids (one or a list) and gives {ExternalEndpoint, TLSCertPath}; consortium-key takes the id of a client identity key (an organization\'s adminKeyId or a consortium node\'s identity key) and gives {MspID, CertPath, KeyPath}. The files they name (TLS CA, certificate, private key mode 0600) are written into a directory of the plugin that only the service\'s user can read, mounted read-only through .volumeMounts at /lnm-plugin, and deleted when the plugin is removed. A key held by Vault or AWS KMS cannot be written to a file: 422 KEY_NOT_EXPORTABLE naming the parameter. The parameters are then checked against the descriptor\'s spec.parameters (400 naming each field; defaults filled in; its patterns run on a linear-time engine, RE2), set as YAML scalars where its compose text has placeholders (never spliced as text: no value can add or change a key; a `$` is written `$$` so Compose never interpolates it), the result checked against the compose policy again (a parameter that makes a host path, a privileged or host-namespace container is a 400 naming the key) and brought up as compose project lnm-plugin-<name>. 503 naming what is missing without a Docker Engine or Compose. Records plugin.enabled.',
    params: NameParam,
    body: Type.Object({ parameters: Type.Optional(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: false }),
    responses: { 200: { description: 'deployed', schema: PluginView }, 404: { description: 'not installed' }, 409: { description: 'already deployed' }, 422: { description: 'compose failed, or an x-source parameter this server cannot resolve' }, 503: { description: 'no Docker Engine or Compose' } },
    async handler(input) {
      const { deps, params } = input;
      const p = await pluginOr404(deps, params.name);
      if (p.status === 'enabled') throw new ConflictError(`Plugin ${p.name} is deployed; stop it first.`, { name: p.name });
      // The request is checked first (400), then whether this machine can run it (503).
      const sourced = await resolveSources(deps, p.descriptor, (input.body.parameters ?? {}) as Record<string, unknown>);
      const parameters = checkPluginParameters(p.descriptor, sourced.parameters);
      const runtime = runtimeOf(deps);
      await assertRunnable(runtime);
      // Files (keys among them) only once everything was accepted; gone again if compose fails.
      try {
        const mounts = await writeSourceFiles(deps, p.name, sourced.files);
        await runtime.deploy(p.name, renderCompose(p.descriptor.spec.dockerCompose.contents, parameters, mounts));
      } catch (err) {
        await runtime.remove(p.name).catch(() => undefined);
        throw err;
      }
      try {
        await record(input, p.name, { type: 'EnablePlugin', name: p.name, parameters, at: deps.clock().toISOString() });
      } catch (err) {
        await runtime.remove(p.name).catch(() => undefined);
        throw err;
      }
      return { body: await view(deps, p.name) };
    },
  }),
  defineRoute({
    method: 'get', path: '/plugins/:name/logs', summary: 'Per-service state and the last lines of output of a deployed plugin, from the Docker Engine', tags, permission: 'PLUGIN_OPERATE',
    description: 'One entry per container of compose project lnm-plugin-<name> (running or stopped), or only the named service\'s. 409 when the plugin was never deployed, 404 when it is not installed or has no such service, 503 without a Docker Engine. With a WebSocket upgrade and ?service=, the service\'s output is followed live instead: one text message per line (masked), the last `tail` lines first (default 0).',
    params: NameParam,
    query: Type.Object({
      service: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$', description: 'a service of its compose file; all of them when absent' })),
      tail: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, default: 100, description: 'lines per service' })),
    }, { additionalProperties: false }),
    responses: { 200: { description: 'services with their logs', schema: Type.Object({ name: Type.String(), status: Type.String(), services: Type.Array(ServiceLogs) }) }, 404: { description: 'not installed, or no such service' }, 409: { description: 'never deployed' }, 503: { description: 'no Docker Engine' } },
    async handler({ deps, params, query }) {
      const p = await pluginOr404(deps, params.name);
      if (p.status === 'installed') throw new ConflictError(`Plugin ${p.name} has not been deployed: it has no containers and no logs.`, { name: p.name, status: p.status });
      const runtime = runtimeOf(deps);
      const why = await runtime.unavailable();
      if (why) throw new UnavailableError(`Plugin logs cannot be read here: ${why}.`);
      const services = await runtime.logs(p.name, { service: query.service, tail: query.tail ?? 100 }).catch((err: unknown) => {
        throw err instanceof AppError ? err : new UnavailableError(`The Docker Engine did not list plugin ${p.name}'s containers: ${(err as Error).message}`);
      });
      if (query.service !== undefined && !services.length) throw new NotFoundError('Plugin service', `${p.name}/${query.service}`);
      return { body: { name: p.name, status: p.status, services } };
    },
  }),
  defineRoute({
    method: 'post', path: '/plugins/:name/stop', summary: 'Stop a deployed plugin (containers kept)', tags, permission: 'PLUGIN_OPERATE',
    params: NameParam,
    responses: { 200: { description: 'stopped', schema: PluginView }, 404: { description: 'not installed' }, 409: { description: 'not running' } },
    async handler(input) {
      const p = await pluginOr404(input.deps, input.params.name);
      plugin.decide({ type: 'DisablePlugin', name: p.name, at: '' }, { status: p.status, descriptor: p.descriptor, parameters: p.parameters });
      await runtimeOf(input.deps).stop(p.name);
      await record(input, p.name, { type: 'DisablePlugin', name: p.name, at: input.deps.clock().toISOString() });
      return { body: await view(input.deps, p.name) };
    },
  }),
  defineRoute({
    method: 'post', path: '/plugins/:name/resume', summary: 'Start a stopped plugin again', tags, permission: 'PLUGIN_OPERATE',
    params: NameParam,
    responses: { 200: { description: 'running', schema: PluginView }, 404: { description: 'not installed' }, 409: { description: 'not stopped, or stopped with no containers left (deploy it again)' }, 503: { description: 'no Docker Engine or Compose' } },
    async handler(input) {
      const p = await pluginOr404(input.deps, input.params.name);
      if (p.status !== 'disabled') throw new ConflictError(`Plugin ${p.name} is not stopped (${p.status}).`, { name: p.name, status: p.status });
      const runtime = runtimeOf(input.deps);
      await assertRunnable(runtime);
      // A stopped plugin whose containers are gone (a redeploy that failed removes them, and so
      // does anyone with access to the engine) has nothing to start: say so, not compose's error.
      if (!(await runtime.services(p.name)).length) {
        throw new ConflictError(`Plugin ${p.name} has no containers left to start (its last deploy failed, or they were removed outside this service): deploy it again.`, { name: p.name, status: p.status }, 'PLUGIN_NOT_DEPLOYED');
      }
      await runtime.resume(p.name);
      await record(input, p.name, { type: 'EnablePlugin', name: p.name, parameters: p.parameters ?? {}, at: input.deps.clock().toISOString() });
      return { body: await view(input.deps, p.name) };
    },
  }),
];
