// Registering a node host: the address is checked (tcp://host:port), the PEMs parsed, and the
// engine asked for its version over mutual TLS before anything is recorded. A host that does
// not answer, or answers a handshake the certificates do not pass, is a 400 naming the reason
// and leaves nothing behind. The client key is sealed under KEY_ENCRYPTION_KEY before the event.
import { runCommand, type CommandInput } from '../commands.ts';
import { hostSecretContext, labelIssues, type KubernetesHostSettings, type NodeHostKind, nodeHostStream, nodeHosts, type NodeHostCapacity } from '../../domain/hosts/nodeHosts.ts';
import { ConflictError, UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import { getNodeHost, nodeHostNamed, type NodeHostRow } from '../../projections/nodeHosts.ts';
import { observationOf, type NodeHostConnection, type NodeHostProbe } from '../../domain/hosts/hostPorts.ts';

export interface RegisterHostRequest {
  name: string;
  /** docker: tcp://host:port of the engine; kubernetes: https://host:port of the API server. */
  url: string;
  kind?: NodeHostKind;
  /** docker hosts. */
  tls?: { caCertificate: string; clientCertificate: string; clientKey: string };
  /** kubernetes hosts: the API server's CA and a bearer token or a client certificate and key (sealed, never shown), or inCluster; where nodes go. */
  kubernetes?: KubernetesHostSettings & { caCertificate?: string; token?: string; clientCertificate?: string; clientKey?: string };
  labels?: Record<string, string>;
  capacity?: { maxNodes?: number | null };
  /** The address other nodes reach this host's nodes at; default the URL's host. */
  externalIp?: string;
}

const TCP_URL = /^(tcp|https):\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})\/?$/;

export function hostProbe(input: CommandInput): NodeHostProbe {
  if (!input.deps.hosts) throw new UnavailableError('Node hosts are not available on this server.');
  return input.deps.hosts.probe;
}

// The field a failed probe points at: a PEM that does not parse, the certificates of a refused handshake, else the URL.
const fieldOf = (reason: string) => (/^tls\.\w+/.exec(reason)?.[0] ?? (/TLS handshake/.test(reason) ? 'tls' : 'url'));

export function capacityOf(c: RegisterHostRequest['capacity']): NodeHostCapacity {
  return { maxNodes: c?.maxNodes ?? null };
}

export async function registerHost(input: CommandInput, req: RegisterHostRequest): Promise<NodeHostRow> {
  const { deps } = input;
  const probe = hostProbe(input);
  const name = req.name.trim();
  if (!name) throw new ValidationError('A host needs a name.', [{ field: 'name', message: 'must not be blank' }]);
  const badLabels = labelIssues(req.labels ?? {});
  if (badLabels.length) throw new ValidationError('Invalid label keys.', badLabels);
  if (req.kind === 'kubernetes') return registerCluster(input, req, name);
  if (!req.tls) throw new ValidationError('A docker host needs tls (its client certificate and key).', [{ field: 'tls', message: 'required for a docker host' }]);
  if (req.kubernetes) throw new ValidationError('kubernetes settings are for a host of kind kubernetes.', [{ field: 'kubernetes', message: 'only with kind kubernetes' }]);
  const m = TCP_URL.exec(req.url.trim());
  if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535) throw new ValidationError('The host URL must be tcp://host:port (the Docker Engine\'s TLS port, usually 2376).', [{ field: 'url', message: 'must be tcp://host:port' }]);
  if ((await nodeHostNamed(deps.pool, name)) !== null) throw new ConflictError(`A host named ${name} exists already.`, { field: 'name' });
  const connection: NodeHostConnection = { url: req.url.trim(), caCertificate: req.tls.caCertificate, clientCertificate: req.tls.clientCertificate, clientKey: req.tls.clientKey };
  const observation = observationOf(await probe.probe(connection));
  if (!observation.reachable) throw new ValidationError(`The host does not work: ${observation.reason}`, [{ field: fieldOf(observation.reason ?? ''), message: observation.reason ?? 'unreachable' }], 'HOST_UNREACHABLE');
  const hostId = await deps.nextId('node_host');
  const sealedSecrets = await deps.secrets.seal(req.tls.clientKey, hostSecretContext(hostId));
  const externalIp = (req.externalIp ?? m[2]).replace(/^\[|\]$/g, '');
  await runCommand(input, nodeHostStream(hostId), nodeHosts, {
    type: 'RegisterNodeHost', hostId, name, labels: req.labels ?? {}, capacity: capacityOf(req.capacity), sealedSecrets, observation, at: deps.clock().toISOString(),
    address: { url: connection.url, externalIp, caCertificate: connection.caCertificate, clientCertificate: connection.clientCertificate },
  });
  return (await getNodeHost(deps.pool, hostId))!;
}

/** loadBalancerAddress and loadBalancerTimeoutSeconds belong to LoadBalancer exposure only. */
export function exposureSettingIssues(k: Pick<KubernetesHostSettings, 'exposure' | 'loadBalancerAddress' | 'loadBalancerTimeoutSeconds'>): { field: string; message: string }[] {
  if (k.exposure === 'LoadBalancer') return [];
  return (['loadBalancerAddress', 'loadBalancerTimeoutSeconds'] as const).filter((f) => k[f] !== undefined).map((f) => ({ field: `kubernetes.${f}`, message: 'only with exposure LoadBalancer' }));
}

const BEARER_TOKEN = /^[A-Za-z0-9._~+/=-]{1,20000}$/;
const HTTPS_URL = /^https:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?\/?$/;

/**
 * A Kubernetes cluster as a node host: the cluster check (kubernetesCluster.ts: reachable,
 * version, nodes Ready, the namespace, the storage class, an access review per verb the engine
 * uses) runs before anything is recorded; any problem is a 400 HOST_UNREACHABLE with one detail
 * per problem, naming its field. The token is sealed like a docker host's client key. In-cluster
 * (`inCluster`), no token or CA is given: the check and the engine read the service's own pod's
 * service account (kubernetesCluster.ts inClusterCredentials), and nothing secret is stored.
 */
async function registerCluster(input: CommandInput, req: RegisterHostRequest, name: string): Promise<NodeHostRow> {
  const { deps } = input;
  const probe = hostProbe(input);
  const k = req.kubernetes;
  if (!k) throw new ValidationError('A kubernetes host needs its kubernetes settings (caCertificate, token, namespace, storageClass).', [{ field: 'kubernetes', message: 'required for kind kubernetes' }]);
  if (req.tls) throw new ValidationError('tls is for a docker host; a kubernetes host takes kubernetes.caCertificate and kubernetes.token.', [{ field: 'tls', message: 'not with kind kubernetes' }]);
  const withCertificate = k.clientCertificate !== undefined || k.clientKey !== undefined;
  if (k.inCluster) {
    const given = (['token', 'caCertificate', 'clientCertificate', 'clientKey'] as const).filter((f) => k[f] !== undefined);
    if (given.length) throw new ValidationError('An in-cluster host uses the service\'s own service account: give no token, caCertificate or client certificate.', given.map((f) => ({ field: `kubernetes.${f}`, message: 'not with inCluster' })));
  } else if (withCertificate) {
    // A client certificate (its key sealed like a token) instead of a bearer token: both PEMs, no token.
    const missing = (['caCertificate', 'clientCertificate', 'clientKey'] as const).filter((f) => k[f] === undefined);
    if (missing.length) throw new ValidationError('A kubernetes host with a client certificate needs kubernetes.caCertificate, kubernetes.clientCertificate and kubernetes.clientKey.', missing.map((f) => ({ field: `kubernetes.${f}`, message: 'required with a client certificate' })));
    if (k.token !== undefined) throw new ValidationError('Give kubernetes.token or a client certificate (kubernetes.clientCertificate and clientKey), not both.', [{ field: 'kubernetes.token', message: 'not with a client certificate' }]);
  } else {
    const missing = (['caCertificate', 'token'] as const).filter((f) => k[f] === undefined);
    if (missing.length) throw new ValidationError('A kubernetes host needs kubernetes.caCertificate and kubernetes.token (or kubernetes.clientCertificate and clientKey), or kubernetes.inCluster.', missing.map((f) => ({ field: `kubernetes.${f}`, message: 'required unless inCluster or a client certificate' })));
  }
  const exposureIssues = exposureSettingIssues(k);
  if (exposureIssues.length) throw new ValidationError(`Invalid exposure settings: ${exposureIssues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, exposureIssues);
  // The sealed secret: the bearer token, or the client certificate's key.
  const secret = withCertificate ? k.clientKey! : k.token ?? '';
  const clientCertificate = withCertificate ? k.clientCertificate! : '';
  const caCertificate = k.caCertificate ?? '';
  // A token that cannot be an HTTP header value would be echoed by the HTTP client's error: refused here, never shown.
  if (!k.inCluster && !withCertificate && !BEARER_TOKEN.test(secret)) throw new ValidationError('kubernetes.token is not a bearer token (letters, digits and ._~+/=- only).', [{ field: 'kubernetes.token', message: 'must be a bearer token' }]);
  const url = req.url.trim().replace(/\/$/, '');
  const m = HTTPS_URL.exec(url);
  if (!m || (m[2] && (Number(m[2].slice(1)) < 1 || Number(m[2].slice(1)) > 65535))) throw new ValidationError('The URL of a kubernetes host is its API server, https://host:port.', [{ field: 'url', message: 'must be https://host:port' }]);
  if (!k.inCluster && !/-----BEGIN CERTIFICATE-----/.test(caCertificate)) throw new ValidationError('kubernetes.caCertificate is not a PEM certificate.', [{ field: 'kubernetes.caCertificate', message: 'must be a PEM certificate' }], 'HOST_UNREACHABLE');
  if ((await nodeHostNamed(deps.pool, name)) !== null) throw new ConflictError(`A host named ${name} exists already.`, { field: 'name' });
  const settings: KubernetesHostSettings = {
    namespace: k.namespace, storageClass: k.storageClass,
    ...(k.volumeSize ? { volumeSize: k.volumeSize } : {}), ...(k.imagePullPolicy ? { imagePullPolicy: k.imagePullPolicy } : {}), ...(k.imagePullSecret ? { imagePullSecret: k.imagePullSecret } : {}),
    ...(k.exposure ? { exposure: k.exposure } : {}), ...(k.loadBalancerAddress ? { loadBalancerAddress: k.loadBalancerAddress } : {}),
    ...(k.loadBalancerTimeoutSeconds ? { loadBalancerTimeoutSeconds: k.loadBalancerTimeoutSeconds } : {}), ...(k.images && Object.keys(k.images).length ? { images: k.images } : {}),
    ...(k.inCluster ? { inCluster: true } : {}),
  };
  // The address peers and clients use: given, else the balancer's when the operator names it, else the API server's host.
  const externalIp = (req.externalIp ?? k.loadBalancerAddress ?? m[1]).replace(/^\[|\]$/g, '');
  const check = await probe.probe({ name, kind: 'kubernetes', kubernetes: settings, url, externalIp, caCertificate, clientCertificate, clientKey: secret });
  if (!check.reachable) {
    const problems = check.problems?.length ? check.problems : [{ field: 'url', message: check.reason ?? 'unreachable' }];
    throw new ValidationError(`The cluster cannot take nodes: ${problems.map((p) => p.message).join('; ')}`, problems, 'HOST_UNREACHABLE');
  }
  const hostId = await deps.nextId('node_host');
  const sealedSecrets = await deps.secrets.seal(secret, hostSecretContext(hostId));
  await runCommand(input, nodeHostStream(hostId), nodeHosts, {
    type: 'RegisterNodeHost', hostId, name, labels: req.labels ?? {}, capacity: capacityOf(req.capacity), sealedSecrets, observation: observationOf(check), at: deps.clock().toISOString(),
    address: { kind: 'kubernetes', kubernetes: settings, url, externalIp, caCertificate, clientCertificate },
  });
  return (await getNodeHost(deps.pool, hostId))!;
}
