// What a plugin's compose file may not ask of the Docker Engine, for anyone who installs it: the
// keys that turn "run a container" into "be root on the host" or reach beyond the plugin's own
// containers. Checked on the descriptor when it is installed (placeholders set aside, with the
// service's own mount as the one allowed host path) and again on the rendered file of every deploy
// (so a parameter cannot become one). Merge keys and aliases are resolved before the check.
//
// Refused (400 naming the key):
//   top level   include, name, secrets, configs (they read host files or the service's
//               environment), a volume with driver_opts, a driver other than local, external or
//               name (they bind host paths or reach other projects' volumes)
//   services    privileged (unless false), cap_add, devices, device_cgroup_rules, security_opt,
//               cgroup_parent, userns_mode, runtime, isolation, credential_spec, build, env_file,
//               volumes_from, use_api_socket, provider, extends from another file; pid, ipc,
//               uts or cgroup "host" or "container:..."; network_mode "container:..."; a volume
//               whose source is a host path other than the service's own mount; labels lnm.*
//               (they mark the service's node containers); privileged lifecycle hooks
// Allowed, on purpose: network_mode host (the shipped plugins reach nodes on the host's loopback
// and publish there; it does not give access to the host's files or processes), named volumes,
// tmpfs, ports, user (root inside an unprivileged container without host mounts is the default of
// most images and gains nothing on the host).
import type { FieldIssue } from '../shared/errors.ts';

const TOP_REFUSED: Record<string, string> = {
  include: 'includes other files from the host',
  name: 'names the compose project (the service names it lnm-plugin-<name>)',
  secrets: 'reads files or environment variables of the host',
  configs: 'reads files or environment variables of the host',
};

const SERVICE_REFUSED: Record<string, string> = {
  cap_add: 'adds kernel capabilities',
  devices: 'gives the container host devices',
  device_cgroup_rules: 'gives the container host devices',
  security_opt: 'changes the container\'s confinement (seccomp, AppArmor, SELinux)',
  cgroup_parent: 'places the container in a host cgroup',
  userns_mode: 'changes the user namespace',
  runtime: 'chooses another container runtime',
  isolation: 'changes the container\'s isolation',
  credential_spec: 'reads host credentials',
  build: 'builds from a host directory (use an image)',
  env_file: 'reads files of the host',
  volumes_from: 'mounts the volumes of other containers',
  use_api_socket: 'gives the container the Docker Engine\'s API',
  provider: 'runs a program on the host',
};

const NAMESPACES = ['pid', 'ipc', 'uts', 'cgroup'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const entries = (v: unknown): Array<[string, unknown]> => (isObject(v) ? Object.entries(v) : []);

/** Whether a volume's source names a host path rather than a named volume. */
const hostPath = (source: string) => /^[./~\\]/.test(source) || source.includes('/') || /^[A-Za-z]:/.test(source) || source.startsWith('$');

/** The source of a short-syntax volume `SOURCE:TARGET[:MODE]`; undefined for an anonymous volume `TARGET`. */
function shortSource(spec: string): string | undefined {
  const parts = spec.split(':');
  return parts.length >= 2 ? parts[0] : undefined;
}

/**
 * The policy's findings on a compose document (as plain data), each naming the key under `at`.
 * `allowedSources` are the host paths the service itself mounts; a source matching `suspect` (a
 * placeholder not yet filled) counts as a host path.
 */
export function composeIssues(doc: unknown, allowedSources: ReadonlySet<string>, at: string, suspect?: RegExp): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const refuse = (path: string, why: string) => issues.push({ field: `${at}.${path}`, message: `${path} is refused in a plugin: it ${why}` });
  if (!isObject(doc)) return issues;
  for (const [k, v] of Object.entries(doc)) {
    if (Object.hasOwn(TOP_REFUSED, k)) refuse(k, TOP_REFUSED[k]);
    if (k === 'volumes') {
      for (const [name, vol] of entries(v)) {
        if (!isObject(vol)) continue;
        if (vol.driver_opts !== undefined) refuse(`volumes.${name}.driver_opts`, 'can bind a host path');
        if (vol.driver !== undefined && vol.driver !== 'local') refuse(`volumes.${name}.driver`, 'uses a volume plugin that can reach the host');
        if (vol.external !== undefined && vol.external !== false) refuse(`volumes.${name}.external`, 'reaches a volume outside the plugin (a node\'s data, say)');
        if (vol.name !== undefined) refuse(`volumes.${name}.name`, 'reaches a volume outside the plugin (a node\'s data, say)');
      }
    }
  }
  for (const [name, service] of entries(doc.services)) {
    const s = `services.${name}`;
    for (const [k, v] of entries(service)) {
      if (Object.hasOwn(SERVICE_REFUSED, k)) refuse(`${s}.${k}`, SERVICE_REFUSED[k]);
      else if (k === 'privileged' && v !== false) refuse(`${s}.privileged`, 'makes the container root on the host');
      else if (NAMESPACES.includes(k) && typeof v === 'string' && /^(host|container:)/i.test(v.trim())) refuse(`${s}.${k}`, `shares the ${k} namespace of the host or of another container`);
      else if (k === 'network_mode' && typeof v === 'string' && /^container:/i.test(v.trim())) refuse(`${s}.network_mode`, 'joins another container\'s network namespace');
      else if (k === 'extends' && isObject(v) && v.file !== undefined) refuse(`${s}.extends.file`, 'reads another file from the host');
      else if (k === 'labels') {
        const keys = Array.isArray(v) ? v.map((l) => String(l).split('=')[0]) : Object.keys(isObject(v) ? v : {});
        for (const label of keys) if (/^lnm\./i.test(label.trim())) refuse(`${s}.labels.${label}`, 'carries a label that marks the service\'s own node containers');
      } else if ((k === 'post_start' || k === 'pre_stop') && Array.isArray(v)) {
        v.forEach((hook, i) => {
          if (isObject(hook) && hook.privileged !== undefined && hook.privileged !== false) refuse(`${s}.${k}[${i}].privileged`, 'runs a command as root on the host');
        });
      } else if (k === 'volumes' && Array.isArray(v)) {
        v.forEach((vol, i) => {
          const source = typeof vol === 'string' ? shortSource(vol) : isObject(vol) ? (vol.source === undefined ? undefined : String(vol.source)) : undefined;
          const type = isObject(vol) ? vol.type : undefined;
          if (type === 'npipe') refuse(`${s}.volumes[${i}]`, 'mounts a host named pipe');
          else if (source !== undefined && (type === 'bind' || hostPath(source) || (suspect !== undefined && suspect.test(source))) && !allowedSources.has(source)) refuse(`${s}.volumes[${i}]`, `mounts the host path ${JSON.stringify(source)} (only the files the service writes for the plugin, through {{ range .volumeMounts }}, may be mounted)`);
          else if (type === 'bind' && source === undefined) refuse(`${s}.volumes[${i}]`, 'binds a host path');
        });
      }
    }
  }
  return issues;
}
