// GET /api/v1/nodes/{id}/logs with a WebSocket upgrade: follows the node's output live, one
// text message per line (key material masked by the engine). Node's http server hands
// upgrades to 'upgrade' listeners, not to Koa, so the same credentials and the same
// permission as the route's (NODE_LOGS_READ) are checked here through the AccessControl.
// Query: tail=N sends the last N existing lines first.
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
import { nodeLogSource } from './nodeLogs.ts';

const LOGS_PATH = /^\/api\/v1\/nodes\/([0-9]{1,9})\/logs\/?$/;

export function nodeLogsUpgradeHandler(app: Koa, deps: AppDeps, routes: RouteDef[], access: AccessControl) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 });
  const route = routes.find((r) => r.method === 'get' && r.path === '/nodes/:id/logs');

  function refuse(socket: Duplex, err: unknown, requestId: string) {
    const { status, body } = errorBody(err, requestId);
    const json = JSON.stringify(body);
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`);
  }

  return async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const requestId = randomUUID();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = LOGS_PATH.exec(url.pathname);
    try {
      if (!match || !route) throw new NotFoundError('WebSocket endpoint', url.pathname);
      const ctx = app.createContext(req, new ServerResponse(req));
      ctx.state.requestId = requestId;
      const identity = await access.authenticate(ctx, deps);
      if (!identity) throw new UnauthenticatedError();
      await access.authorize(identity, route, ctx, deps);
      const node = await nodeOr404(deps, Number(match[1]));
      const source = await nodeLogSource(deps, node);
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
          .catch((err: Error) => ws.close(1011, err.message.slice(0, 120)));
      });
    } catch (err) {
      refuse(socket, err, requestId);
    }
  };
}
