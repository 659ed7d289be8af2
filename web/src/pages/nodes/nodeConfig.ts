// The configuration of an EVM or consortium node beyond its name and owner (the fields, their
// checks and the config sent; the inputs are NodeConfigFields.tsx): every field of
// POST /nodes `config` for the kind (ports, addresses, role, client, engine), and the subset
// PUT /nodes/{id} changes on a stopped node (ports and, for consortium, addresses). Values are
// strings while typed; `nodeConfigBody` turns the filled ones into the API's config, and
// `nodeConfigIssues` checks them before sending (a port 1024-65535, each port different, IPv4
// addresses, host:port). The API's own 400 or 409 is shown beside the field it names.
export type ConfigKind = 'EVM_FULLNODE' | 'CONSORTIUM_PEER' | 'CONSORTIUM_ORDERER';
export type ConfigValues = Record<string, string>;

export interface Field {
  key: string;
  label: string;
  type: 'port' | 'ipv4' | 'endpoint' | 'host' | 'list' | 'select';
  options?: Array<[string, string]>;
  help: string;
  /** Shown on create only (PUT /nodes/{id} does not change it). */
  createOnly?: boolean;
}

const ENGINE: Field = { key: 'engine', label: 'Engine', type: 'select', createOnly: true, options: [['', "The service's default"], ['process', 'process (a program on this machine)'], ['docker', 'docker (a container)']], help: 'How the node runs.' };

const EVM_FIELDS: Field[] = [
  { key: 'role', label: 'Role', type: 'select', createOnly: true, options: [['', 'full node (default)'], ['bootnode', 'bootnode (peer-to-peer port only)'], ['validator', 'validator']], help: 'A bootnode is what isBootnode true asks for; its RPC ports stay empty.' },
  { key: 'client', label: 'Client', type: 'select', createOnly: true, options: [['', "The network's client"], ['auto', 'auto'], ['besu', 'besu'], ['geth', 'geth'], ['anvil', 'anvil']], help: "Must match the network's client (its genesis hash is that client's)." },
  ENGINE,
  { key: 'p2pPort', label: 'Peer-to-peer port', type: 'port', help: 'RLPx; empty: the next free port from the default.' },
  { key: 'rpcHttpPort', label: 'JSON-RPC HTTP port', type: 'port', help: 'Empty: the next free port from the default.' },
  { key: 'rpcWsPort', label: 'JSON-RPC WebSocket port', type: 'port', help: 'besu only; empty: the next free port from the default.' },
  { key: 'metricsPort', label: 'Metrics port', type: 'port', help: 'besu only (Prometheus); empty: the next free port from the default.' },
  { key: 'externalIp', label: 'External IPv4 address', type: 'ipv4', createOnly: true, help: 'besu on this machine: the address nodes on other hosts reach it at (it then listens on every interface and advertises this address). Not with a node host.' },
];

/** The Fabric releases the service finds (GET /nodes/defaults/consortium-*: fabricReleases), newest first. */
const fabricReleaseField = (releases: string[]): Field[] =>
  releases.length > 1
    ? [{ key: 'fabricVersion', label: 'Fabric release', type: 'select', createOnly: true, options: [['', `The newest (${releases[0]})`], ...releases.map((v): [string, string] => [v, `Fabric ${v}`])], help: 'The release it runs: its programs (process engine) or its image tagged by version (docker engine; docs/consortium.md).' }]
    : [];

const consortiumFields = (kind: ConfigKind, releases: string[]): Field[] => [
  ENGINE,
  ...fabricReleaseField(releases),
  { key: 'port', label: 'gRPC port', type: 'port', help: kind === 'CONSORTIUM_PEER' ? 'Fabric default 7051.' : 'Fabric default 7050.' },
  ...(kind === 'CONSORTIUM_PEER' ? [{ key: 'chaincodePort', label: 'Chaincode port', type: 'port', help: 'Fabric default 7052.' } as Field] : [{ key: 'adminPort', label: 'Admin port (channel participation)', type: 'port', help: 'Fabric default 7053.' } as Field]),
  { key: 'operationsPort', label: 'Operations port', type: 'port', help: '/healthz and /metrics; Fabric default ' + (kind === 'CONSORTIUM_PEER' ? '9443.' : '8443.') },
  { key: 'listenAddress', label: 'Listen address', type: 'ipv4', help: 'The IPv4 address it binds to (0.0.0.0: every interface).' },
  { key: 'hostname', label: 'Host name', type: 'host', help: 'The name in its certificates.' },
  { key: 'externalEndpoint', label: 'External endpoint', type: 'endpoint', help: 'host:port others reach it at.' },
  { key: 'domainNames', label: 'Extra TLS names', type: 'list', help: 'Names and IPv4 addresses added to its TLS certificate, separated by commas (changed names need a certificate renewal).' },
];

export function configFields(kind: ConfigKind, mode: 'create' | 'update', fabricReleases: string[] = []): Field[] {
  const all = kind === 'EVM_FULLNODE' ? EVM_FIELDS : consortiumFields(kind, fabricReleases);
  return mode === 'create' ? all : all.filter((f) => !f.createOnly);
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const HOST = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** What is wrong with the typed values, by field, before anything is sent. */
export function nodeConfigIssues(fields: Field[], values: ConfigValues): Record<string, string> {
  const out: Record<string, string> = {};
  const ports = new Map<string, string>();
  for (const f of fields) {
    const v = (values[f.key] ?? '').trim();
    if (!v) continue;
    if (f.type === 'port') {
      if (!/^\d+$/.test(v) || Number(v) < 1024 || Number(v) > 65535) out[f.key] = 'a port from 1024 to 65535';
      else if (ports.has(v)) out[f.key] = `the same port as ${ports.get(v)}`;
      else ports.set(v, f.label);
    }
    if (f.type === 'ipv4' && !IPV4.test(v)) out[f.key] = 'an IPv4 address such as 0.0.0.0';
    if (f.type === 'host' && !HOST.test(v)) out[f.key] = 'a DNS name';
    if (f.type === 'endpoint') {
      const m = v.match(/^(.+):(\d{1,5})$/);
      if (!m || !(HOST.test(m[1]) || IPV4.test(m[1])) || Number(m[2]) < 1 || Number(m[2]) > 65535) out[f.key] = 'host:port';
    }
    if (f.type === 'list' && v.split(',').some((d) => d.trim() && !HOST.test(d.trim()) && !IPV4.test(d.trim()))) out[f.key] = 'DNS names or IPv4 addresses, separated by commas';
  }
  return out;
}

/** The filled values as the API's config object (empty fields left out: the service fills them). */
export function nodeConfigBody(fields: Field[], values: ConfigValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = (values[f.key] ?? '').trim();
    if (!v) continue;
    out[f.key] = f.type === 'port' ? Number(v) : f.type === 'list' ? v.split(',').map((d) => d.trim()).filter(Boolean) : v;
  }
  return out;
}

/** A node's current configuration (its read shape's config) as form values. */
export function configValues(fields: Field[], config: Record<string, unknown> | null | undefined): ConfigValues {
  const out: ConfigValues = {};
  for (const f of fields) {
    const v = config?.[f.key];
    if (v === undefined || v === null) continue;
    out[f.key] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

