// Registering a node host: the address is checked (tcp://host:port), the PEMs parsed, and the
// engine asked for its version over mutual TLS before anything is recorded. A host that does
// not answer, or answers a handshake the certificates do not pass, is a 400 naming the reason
// and leaves nothing behind. The client key is sealed under KEY_ENCRYPTION_KEY before the event.
import { runCommand, type CommandInput } from '../commands.ts';
import { hostSecretContext, labelIssues, nodeHostStream, nodeHosts, type NodeHostCapacity } from '../../domain/hosts/nodeHosts.ts';
import { ConflictError, UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import { getNodeHost, nodeHostNamed, type NodeHostRow } from '../../projections/nodeHosts.ts';
import type { NodeHostConnection, NodeHostProbe } from '../../domain/hosts/hostPorts.ts';

export interface RegisterHostRequest {
  name: string;
  url: string;
  tls: { caCertificate: string; clientCertificate: string; clientKey: string };
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
  const m = TCP_URL.exec(req.url.trim());
  if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535) throw new ValidationError('The host URL must be tcp://host:port (the Docker Engine\'s TLS port, usually 2376).', [{ field: 'url', message: 'must be tcp://host:port' }]);
  if ((await nodeHostNamed(deps.pool, name)) !== null) throw new ConflictError(`A host named ${name} exists already.`, { field: 'name' });
  const connection: NodeHostConnection = { url: req.url.trim(), caCertificate: req.tls.caCertificate, clientCertificate: req.tls.clientCertificate, clientKey: req.tls.clientKey };
  const observation = await probe.probe(connection);
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
