import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';

const Component = Type.Object({ status: Type.Union([Type.Literal('up'), Type.Literal('down')]), latencyMs: Type.Optional(Type.Number()), error: Type.Optional(Type.String()) });

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/health',
    summary: 'Health of the service, its database and its event store',
    tags: ['system'],
    permission: 'PUBLIC',
    responses: {
      200: {
        description: 'healthy',
        schema: Type.Object({
          status: Type.Union([Type.Literal('healthy'), Type.Literal('unhealthy')]),
          version: Type.String(),
          edition: Type.String(),
          uptimeSeconds: Type.Integer(),
          database: Component,
          eventStore: Type.Intersect([Component, Type.Object({ kind: Type.String(), headPosition: Type.Optional(Type.Integer()) })]),
          projections: Type.Object({ position: Type.Integer(), lag: Type.Optional(Type.Integer()), lastError: Type.Union([Type.String(), Type.Null()]) }),
          instance: Type.Object({
            id: Type.String({ description: 'the instance that answered (INSTANCE_ID, or the id kept in its data directory)' }),
            work: Type.Array(Type.String(), { description: 'the leases on background work this instance holds now (empty: another instance does that work)' }),
          }),
          deployment: Type.Optional(
            Type.Object({
              id: Type.String({ description: 'the deployment id, one per database and the same on every instance of it: the label lnm.deployment of the objects the kubernetes engine makes (docs/kubernetes.md "Two deployments on one cluster"); not a secret' }),
            }),
          ),
        }),
      },
      503: { description: 'unhealthy: the same body, with the failing component marked down' },
    },
    async handler({ deps }) {
      const probe = async (fn: () => Promise<unknown>) => {
        const t = performance.now();
        try {
          const value = await Promise.race([fn(), new Promise((_, rej) => setTimeout(() => rej(new Error('timed out after 3 s')), 3000))]);
          return { status: 'up' as const, latencyMs: Math.round((performance.now() - t) * 10) / 10, value };
        } catch (err) {
          return { status: 'down' as const, error: (err as Error).message };
        }
      };
      const [db, es] = await Promise.all([probe(() => deps.pool.query('SELECT 1')), probe(async () => { await deps.store.ping(); return deps.store.headPosition(); })]);
      const head = es.status === 'up' ? Number(es.value) : undefined;
      const healthy = db.status === 'up' && es.status === 'up';
      return {
        status: healthy ? 200 : 503,
        body: {
          status: healthy ? 'healthy' : 'unhealthy',
          version: deps.config.version,
          edition: deps.config.edition,
          uptimeSeconds: Math.floor((deps.clock().getTime() - deps.startedAt.getTime()) / 1000),
          database: { status: db.status, ...(db.status === 'up' ? { latencyMs: db.latencyMs } : { error: db.error }) },
          eventStore: { kind: deps.store.kind, status: es.status, ...(es.status === 'up' ? { latencyMs: es.latencyMs, headPosition: head } : { error: es.error }) },
          projections: { position: deps.projector.position(), ...(head !== undefined ? { lag: Math.max(0, head - deps.projector.position()) } : {}), lastError: deps.projector.lastError() },
          instance: { id: deps.config.instanceId, work: deps.work?.() ?? [] },
          ...(deps.config.deploymentId ? { deployment: { id: deps.config.deploymentId } } : {}),
        },
      };
    },
  }),
];
