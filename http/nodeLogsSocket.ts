// GET /api/v1/nodes/{id}/logs and GET /api/v1/plugins/{name}/logs?service=S with a WebSocket
// upgrade: follows the node's (or the plugin service's container's) output live, one text
// message per line (key material masked). Node's http server hands upgrades to 'upgrade'
// listeners, not to Koa, so the same credentials and the same permission as the matching GET
// route's (NODE_LOGS_READ, PLUGIN_OPERATE) are checked here through the AccessControl.
// Query: tail=N sends the last N existing lines first. A node that never ran closes the socket
// with code 4409 (NEVER_RAN_CLOSE_CODE) and why, its last error included (cut at 120 bytes).
import { randomUUID } from 'node:crypto';
import { ServerResponse, STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { WebSocketServer } from 'ws';
import type { AccessControl } from './accessControlPort.ts';
import type { AppDeps } from '../application/deps.ts';
import type { RouteDef } from './route.ts';
import { errorBody } from './errors.ts';
import { NotFoundError, UnauthenticatedError } from '../domain/shared/errors.ts';
import { nodeOr404 } from '../application/evm/evmContext.ts';
import { NEVER_RAN_CLOSE_CODE, NodeNeverRanError, nodeLogSource } from './nodeLogs.ts';
import { pluginLogFollower } from './routes/plugins.ts';

const LOGS_PATH = /^\/api\/v1\/nodes\/([0-9]{1,9})\/logs\/?$/;
const PLUGIN_LOGS_PATH = /^\/api\/v1\/plugins\/([A-Za-z0-9][A-Za-z0-9_.-]{0,62})\/logs\/?$/;

export function nodeLogsUpgradeHandler(app: Koa, deps: AppDeps, routes: RouteDef[], access: AccessControl) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 });
  const route = routes.find((r) => r.method === 'get' && r.path === '/nodes/:id/logs');
  const pluginRoute = routes.find((r) => r.method === 'get' && r.path === '/plugins/:name/logs');

  function refuse(socket: Duplex, err: unknown, requestId: string) {
    const { status, body } = errorBody(err, requestId);
    const json = JSON.stringify(body);
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`);
  }

  return async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const requestId = randomUUID();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = LOGS_PATH.exec(url.pathname);
    const pluginMatch = match ? null : PLUGIN_LOGS_PATH.exec(url.pathname);
    try {
      const matched = match ? route : pluginMatch ? pluginRoute : undefined;
      if (!matched) throw new NotFoundError('WebSocket endpoint', url.pathname);
      const ctx = app.createContext(req, new ServerResponse(req));
      ctx.state.requestId = requestId;
      const identity = await access.authenticate(ctx, deps);
      if (!identity) throw new UnauthenticatedError();
      await access.authorize(identity, matched, ctx, deps);
      const source = match ? await nodeLogSource(deps, await nodeOr404(deps, Number(match[1]))) : await pluginLogFollower(deps, pluginMatch![1], url.searchParams.get('service'));
      const tail = Math.min(Math.max(Number(url.searchParams.get('tail') ?? 0) || 0, 0), 10000);
      wss.handleUpgrade(req, socket, head, (ws) => {
        let follower: { close(): void } | null = null;
        let closed = false;
        ws.on('close', () => {
          closed = true;
          follower?.close();
        });
        source
          .follow((line) => ws.readyState === ws.OPEN && ws.send(line), tail)
          .then((f) => (closed ? f.close() : (follower = f)))
          .catch((err: Error) => ws.close(err instanceof NodeNeverRanError ? NEVER_RAN_CLOSE_CODE : 1011, Buffer.from(err.message).subarray(0, 120).toString('utf8').replace(/\uFFFD$/, '')));
      });
    } catch (err) {
      refuse(socket, err, requestId);
    }
  };
}
