// Node hosts: Docker Engines on other machines, reached over TCP with mutual TLS, where nodes
// can be placed (POST /nodes with config.hostId). The local engine is the default host and is
// not listed. The client key is write-only: sealed at rest, never in an answer (hasClientKey).
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { IdParam } from './schemas.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { getNodeHost, listNodeHosts, type NodeHostRow } from '../../projections/nodeHosts.ts';
import { registerHost } from '../../application/hosts/hostRegister.ts';
import { deleteHost, updateHost } from '../../application/hosts/hostChange.ts';

const tags = ['hosts'];

const Pem = (what: string) => Type.String({ minLength: 1, maxLength: 20000, description: what });
const Labels = Type.Record(Type.String(), Type.String({ maxLength: 200 }), { maxProperties: 50, description: 'free labels (zone, rack, ...); keys are 1-63 letters, digits, ".", "_", "/" or "-"' });
const Capacity = Type.Object({ maxNodes: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 100000 }), Type.Null()], { description: 'most nodes placed on this host; null or left out: no limit' })) }, { additionalProperties: false });

const KubernetesSettings = {
  namespace: Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', description: 'where the nodes\' objects go; it must exist' }),
  storageClass: Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', description: 'the storage class of each node\'s volume claim; it must exist (pre-created volumes of that class serve)' }),
  volumeSize: Type.Optional(Type.String({ maxLength: 20, pattern: '^[0-9]+(Ki|Mi|Gi|Ti)?$', description: 'size of each node\'s claim; default 1Gi' })),
  imagePullPolicy: Type.Optional(Type.Union([Type.Literal('Never'), Type.Literal('IfNotPresent'), Type.Literal('Always')], { description: 'default Never: images are loaded into the cluster\'s nodes' })),
  imagePullSecret: Type.Optional(Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', description: 'the name of a docker-registry Secret in the namespace' })),
  exposure: Type.Optional(Type.Union([Type.Literal('NodePort'), Type.Literal('LoadBalancer'), Type.Literal('hostPort')], { description: 'how the nodes\' ports are exposed (default NodePort): NodePort (a Service of type NodePort, node port = the node\'s port, 30000-32767, at externalIp), LoadBalancer (a Service of type LoadBalancer with the same node ports, at loadBalancerAddress or else the address the cluster\'s load balancer sets in the Service\'s status.loadBalancer.ingress, waited for at each start), hostPort (the pod\'s container ports bound on its cluster node, at externalIp; any port)' })),
  loadBalancerAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:-]+$', description: 'exposure LoadBalancer only: the address clients reach the nodes\' balanced Services at, given by the operator (no wait for the ingress); also the default externalIp' })),
  loadBalancerTimeoutSeconds: Type.Optional(Type.Integer({ minimum: 5, maximum: 900, description: 'exposure LoadBalancer only: how long a node start waits for its Service\'s status.loadBalancer.ingress; default 120' })),
  images: Type.Optional(Type.Record(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }), Type.String({ minLength: 1, maxLength: 300, pattern: '^[A-Za-z0-9][A-Za-z0-9._/:@-]*$' }), { maxProperties: 30, description: 'this cluster\'s image references by software name (anvil, fabric-peer, fabric-orderer, ...), over the service\'s own table (LNM_IMAGE_*); e.g. the names under which a registry serves them' })),
  inCluster: Type.Optional(Type.Boolean({ description: 'true: the service runs in this cluster and uses its own pod\'s service account (token and CA read from /var/run/secrets/kubernetes.io/serviceaccount at each call; no caCertificate or token given); url is the API server as the pod reaches it (https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT)' })),
};

export const HostSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('docker'), Type.Literal('kubernetes')], { description: 'docker: a Docker Engine over mutual TLS; kubernetes: a cluster (docs/kubernetes.md)' }),
  kubernetes: Type.Union([Type.Object({ ...KubernetesSettings, hasToken: Type.Boolean({ description: 'a bearer token is registered (false with a client certificate, tls.clientCertificate and tls.hasClientKey, or inCluster)' }) }), Type.Null()], { description: 'a kubernetes host\'s settings (never its token or client key); null for a docker host' }),
  url: Type.String({ description: 'tcp://host:port of the Docker Engine (TLS), or https://host:port of a cluster\'s API server' }),
  externalIp: Type.String({ description: 'the address nodes on this host are reached at (their externalIp)' }),
  labels: Type.Record(Type.String(), Type.String()),
  capacity: Type.Object({ maxNodes: Type.Union([Type.Integer(), Type.Null()]) }),
  tls: Type.Object({ caCertificate: Type.String({ description: 'the CA of the engine or of the API server' }), clientCertificate: Type.String({ description: 'the client certificate (a kubernetes host: empty unless registered with kubernetes.clientCertificate)' }), hasClientKey: Type.Boolean() }),
  status: Type.Object({
    reachable: Type.Boolean(),
    engineVersion: Type.Union([Type.String(), Type.Null()]),
    runningNodes: Type.Union([Type.Integer(), Type.Null()], { description: 'running containers of this service\'s nodes on the host' }),
    lastError: Type.Union([Type.String(), Type.Null()]),
    checkedAt: Type.String({ format: 'date-time', description: 'when the status last changed (checks that see the same are not recorded)' }),
    kubernetes: Type.Union([Type.Object({
      version: Type.Union([Type.String(), Type.Null()], { description: 'the API server\'s gitVersion, v1.20.2' }),
      nodes: Type.Union([Type.Object({ total: Type.Integer(), ready: Type.Integer({ description: 'nodes whose Ready condition is True' }) }), Type.Null()], { description: 'null when the credentials may not list the cluster\'s nodes (not needed by the engine)' }),
      missingPermissions: Type.Array(Type.Object({ verb: Type.String(), resource: Type.String({ description: 'group/resource[/subresource], pods/log, apps/statefulsets' }) }), { description: 'the engine\'s verbs in the namespace a SelfSubjectAccessReview denied; the engine uses every one, so any missing one makes the cluster unusable (status.reachable false)' }),
      checkedAt: Type.String({ format: 'date-time', description: 'when these findings were recorded (status.checkedAt)' }),
    }), Type.Null()], { description: 'a kubernetes host: the periodic cluster check\'s findings (docs/kubernetes.md); null for a docker host or a cluster that did not answer' }),
  }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export function hostView(h: NodeHostRow) {
  return {
    id: h.id, name: h.name, kind: h.kind, kubernetes: h.kubernetes ? { ...h.kubernetes, hasToken: !h.kubernetes.inCluster && !h.clientCertificate } : null, url: h.url, externalIp: h.externalIp, labels: h.labels, capacity: { maxNodes: h.maxNodes },
    tls: { caCertificate: h.caCertificate, clientCertificate: h.clientCertificate, hasClientKey: h.kind !== 'kubernetes' || !!h.clientCertificate },
    status: { reachable: h.reachable, engineVersion: h.engineVersion, runningNodes: h.runningNodes, lastError: h.lastError, checkedAt: h.checkedAt,
      kubernetes: h.kind === 'kubernetes' && h.kubernetesCheck ? { ...h.kubernetesCheck, checkedAt: h.checkedAt } : null },
    createdAt: h.createdAt, updatedAt: h.updatedAt,
  };
}

const CreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  kind: Type.Optional(Type.Union([Type.Literal('docker'), Type.Literal('kubernetes')], { description: 'default docker' })),
  url: Type.String({ minLength: 1, maxLength: 300, description: 'docker: tcp://host:port of a Docker Engine started with --tlsverify; kubernetes: https://host:port of the API server' }),
  externalIp: Type.Optional(Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:-]+$', description: 'the address other nodes and this service reach the host\'s nodes at (a cluster: the address of its NodePorts); default the URL\'s host' })),
  kubernetes: Type.Optional(Type.Object({
    caCertificate: Type.Optional(Pem('PEM of the CA that signed the API server\'s certificate; required unless inCluster')),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 20000, pattern: '^[A-Za-z0-9._~+/=-]+$', description: 'a bearer token (a service account\'s; letters, digits and ._~+/=-); write-only, sealed under KEY_ENCRYPTION_KEY; required unless inCluster or a client certificate is given' })),
    clientCertificate: Type.Optional(Pem('PEM of a client certificate the API server accepts (signed by its client CA), instead of a token; with clientKey')),
    clientKey: Type.Optional(Pem('PEM of the client certificate\'s private key; write-only, sealed under KEY_ENCRYPTION_KEY, never shown; it must fit clientCertificate')),
    ...KubernetesSettings,
  }, { additionalProperties: false, description: 'kind kubernetes only' })),
  tls: Type.Optional(Type.Object({
    caCertificate: Pem('PEM of the CA that signed the engine\'s server certificate'),
    clientCertificate: Pem('PEM of the client certificate the engine trusts'),
    clientKey: Pem('PEM of the client certificate\'s private key; write-only, sealed under KEY_ENCRYPTION_KEY'),
  }, { additionalProperties: false, description: 'kind docker only (required there)' })),
  labels: Type.Optional(Labels),
  capacity: Type.Optional(Capacity),
}, { additionalProperties: false });

const UpdateBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  labels: Type.Optional(Labels),
  capacity: Type.Optional(Capacity),
}, { additionalProperties: false });

const createNotes = 'The engine is asked for its version over mutual TLS before anything is saved: a URL that does not answer, a refused or failed TLS handshake, or a PEM that does not parse (or a key that does not fit the certificate) is a 400 HOST_UNREACHABLE naming the reason and the field (url, tls, tls.caCertificate, tls.clientCertificate, tls.clientKey), and nothing is recorded. ' +
  'A kubernetes host (kind kubernetes, url its API server, the kubernetes settings) is checked before anything is saved: reachable, a Ready node, the namespace, the storage class, and an access review per verb the engine uses; each problem is a detail of a 400 HOST_UNREACHABLE naming its field (url, kubernetes.namespace, kubernetes.storageClass, kubernetes.token or kubernetes.clientCertificate with the missing permissions, kubernetes.clientCertificate or kubernetes.clientKey when a PEM does not parse or the key does not fit the certificate; kubernetes.inCluster when the service\'s own service account is missing or lacks them). Nodes are placed on a kubernetes host through config.hostId (docs/kubernetes.md). ' +
  'The status is checked again every LNM_HOST_CHECK_SECONDS (default 30); a host that stops answering marks its running nodes down (node.downtime), and they recover (node.recovery) when it answers again.';

export const hostRoutes = [
  defineRoute({
    method: 'get', path: '/hosts', summary: 'List node hosts (remote Docker Engines and Kubernetes clusters; never their client keys or tokens)', tags, permission: 'HOST_READ',
    query: Type.Object({ ...PageQuery, label: Type.Optional(Type.String({ maxLength: 300, pattern: '^[^=]+=[^=]*$', description: 'key=value: only hosts carrying that label' })) }, { additionalProperties: false }),
    responses: { 200: { description: 'hosts, oldest first', schema: Page(HostSchema) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const [k, v] = query.label ? query.label.split('=') : [];
      const all = await listNodeHosts(deps.pool, k === undefined ? {} : { [k]: v });
      return { body: page(all.slice(offset, offset + limit).map(hostView), all.length, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/hosts', summary: 'Register a node host (a Docker Engine over TCP with mutual TLS, or a Kubernetes cluster)', description: createNotes, tags, permission: 'HOST_MANAGE', body: CreateBody,
    responses: { 201: { description: 'registered and reachable', schema: HostSchema }, 400: { description: 'invalid, or the engine cannot be used (HOST_UNREACHABLE with the reason)' }, 409: { description: 'name taken' }, 503: { description: 'hosts are not wired on this server' } },
    async handler(input) {
      const row = await registerHost(input, input.body);
      return { status: 201, body: hostView(row), headers: { Location: `/api/v1/hosts/${row.id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/hosts/:id', summary: 'Read a node host and its last status', tags, permission: 'HOST_READ', params: IdParam,
    responses: { 200: { description: 'the host', schema: HostSchema }, 404: { description: 'no such host' } },
    async handler({ deps, params }) {
      const h = await getNodeHost(deps.pool, params.id);
      if (!h) throw new NotFoundError('Host', params.id);
      return { body: hostView(h) };
    },
  }),
  defineRoute({
    method: 'put', path: '/hosts/:id', summary: 'Rename a node host, or change its labels or capacity (fields left out are kept) (its address and certificates are fixed: register a new host)', tags, permission: 'HOST_MANAGE', params: IdParam, body: UpdateBody,
    responses: { 200: { description: 'changed', schema: HostSchema }, 404: { description: 'no such host' }, 409: { description: 'name taken' } },
    async handler(input) {
      return { body: hostView(await updateHost(input, input.params.id, input.body)) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/hosts/:id', summary: 'Remove a node host from the registry (the engine itself is left alone)', tags, permission: 'HOST_MANAGE', params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such host' }, 409: { description: 'nodes are still placed on it' } },
    async handler(input) {
      await deleteHost(input, input.params.id);
      return { status: 204 };
    },
  }),
];
