// The node RPC gateway (POST /networks/evm/{id}/rpc, /networks/evm/{id}/nodes/{nodeId}/rpc):
// JSON-RPC 2.0 requests, one or a batch, forwarded to a running node of the network (the first,
// or the one named) when their method is a read of the allowlist (domain/evm/evmExplorer.ts);
// a method that signs, sends or administers is refused, named, and never reaches the node.
// Bounds: at most RPC_GATEWAY_LIMITS.maxBatch calls in a batch (413), an answer of at most
// maxResponseBytes (502 saying so), an answer within timeoutMs (504). Ids are the gateway's own
// on the way to the node (so duplicate or missing ids cannot confuse a batch), the caller's on
// the way back. A refused method is recorded here as an AccessDenied event (once: the 403 of a
// single refused call is not recorded again), before the refusal is answered.
import type { CommandInput } from '../commands.ts';
import { recordSecurityEvent } from '../securityEvents.ts';
import { AppError, ForbiddenError, ValidationError } from '../../domain/shared/errors.ts';
import { rpcMethodAllowed, rpcRefusal } from '../../domain/evm/evmExplorer.ts';
import { evmOf, networkOr404 } from './evmContext.ts';
import { runningNode } from './evmContractCall.ts';

export const RPC_GATEWAY_LIMITS = { maxBatch: 100, maxResponseBytes: 10 * 1024 * 1024, timeoutMs: 10_000 };

/** The JSON-RPC error code of a refused method (as for a method the node does not offer). */
export const RPC_REFUSED_CODE = -32601;
const METHOD = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

type Id = string | number | null;
interface Call {
  id: Id;
  /** No id member: a notification, which is answered with nothing. */
  notification: boolean;
  method: string;
  params: unknown;
}
type Entry = { call: Call } | { invalid: string; id: Id };

export interface GatewayAnswer {
  /** The JSON-RPC answer: an object, an array for a batch, or nothing (notifications only). */
  body: unknown;
  /** The methods refused in a batch (recorded as an AccessDenied event); a single refused call is a 403 instead. */
  refused: string[];
}

/** The AccessDenied audit event of refused methods. */
async function recordRefused(input: CommandInput, networkId: number, refused: string[]): Promise<void> {
  const methods = [...new Set(refused)];
  await recordSecurityEvent(input, 'AccessDenied', {
    action: 'EXECUTE', resourceType: 'network', resourceId: String(networkId),
    message: `The RPC gateway refused ${methods.join(', ')}: only reads are forwarded.`, methods, responseCode: 403,
  });
}

function entryOf(raw: unknown, index: number | null): Entry {
  const where = index === null ? '' : `[${index}]`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { invalid: `body${where} must be a JSON-RPC request object`, id: null };
  const r = raw as Record<string, unknown>;
  const id = typeof r.id === 'string' || typeof r.id === 'number' || r.id === null ? (r.id as Id) : null;
  if (typeof r.id === 'string' && r.id.length > 200) return { invalid: `body${where}.id is longer than 200 characters`, id: null };
  if (r.jsonrpc !== '2.0') return { invalid: `body${where}.jsonrpc must be "2.0"`, id };
  if (typeof r.method !== 'string' || !METHOD.test(r.method)) return { invalid: `body${where}.method must be a method name (letters, digits, "_", at most 100)`, id };
  if (r.params !== undefined && (typeof r.params !== 'object' || r.params === null)) return { invalid: `body${where}.params must be an array or an object`, id };
  if (r.id !== undefined && !(typeof r.id === 'string' || typeof r.id === 'number' || r.id === null)) return { invalid: `body${where}.id must be a string, a number or null`, id: null };
  return { call: { id, notification: !('id' in r), method: r.method, params: r.params ?? [] } };
}

const rpcError = (id: Id, code: number, message: string, data?: unknown) => ({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });

/** Forward a JSON-RPC request or batch to a running node of the network: reads only. */
export async function forwardEvmRpc(input: CommandInput, networkId: number, nodeId: number | undefined, body: unknown): Promise<GatewayAnswer> {
  const batch = Array.isArray(body);
  if (batch && body.length === 0) throw new ValidationError('An empty batch is not a JSON-RPC request: send at least one call.', [{ field: 'body', message: 'an empty batch' }], 'RPC_INVALID_REQUEST');
  if (batch && body.length > RPC_GATEWAY_LIMITS.maxBatch) {
    throw new AppError(413, 'RPC_BATCH_TOO_LARGE', `A batch of ${body.length} calls is more than the gateway forwards (${RPC_GATEWAY_LIMITS.maxBatch}); split it.`, { details: [{ field: 'body', message: `at most ${RPC_GATEWAY_LIMITS.maxBatch} calls` }] });
  }
  const entries = batch ? (body as unknown[]).map((e, i) => entryOf(e, i)) : [entryOf(body, null)];
  if (!batch && 'invalid' in entries[0]) {
    const message = entries[0].invalid;
    throw new ValidationError(`Not a JSON-RPC 2.0 request: ${message}.`, [{ field: message.split(' ')[0], message: message.split(' ').slice(1).join(' ') }], 'RPC_INVALID_REQUEST');
  }
  const refused = entries.flatMap((e) => ('call' in e && !rpcMethodAllowed(e.call.method) ? [e.call.method] : []));
  const forwarded = entries.flatMap((e, i) => ('call' in e && rpcMethodAllowed(e.call.method) ? [{ i, call: e.call }] : []));

  if (!batch && refused.length) {
    const method = refused[0];
    await recordRefused(input, networkId, refused);
    throw new ForbiddenError(rpcRefusal(method), { method });
  }
  // The network and a running node are checked even when nothing is forwarded: a refusal must not tell more than an answer would.
  const network = await networkOr404(input.deps, networkId);
  const node = await runningNode(input, network, nodeId);

  const answers = new Map<number, unknown>();
  if (forwarded.length) {
    const out = forwarded.map((f, k) => ({ jsonrpc: '2.0', id: k, method: f.call.method, params: f.call.params }));
    const answer = await evmOf(input.deps).rpc.forward(node.rpcUrl, JSON.stringify(batch ? out : out[0]), { timeoutMs: RPC_GATEWAY_LIMITS.timeoutMs, maxBytes: RPC_GATEWAY_LIMITS.maxResponseBytes });
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      throw new AppError(502, 'RPC_BAD_ANSWER', `Node ${node.nodeId} answered HTTP ${answer.status} without a JSON-RPC body.`, { expose: true, extra: { nodeId: node.nodeId } });
    }
    const list = (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown> | null>;
    for (const r of list) {
      const k = typeof r?.id === 'number' ? r.id : -1;
      if (forwarded[k]) answers.set(forwarded[k].i, r);
    }
  }
  const results: unknown[] = [];
  entries.forEach((e, i) => {
    if ('invalid' in e) return void results.push(rpcError(e.id, -32600, `Invalid request: ${e.invalid}.`));
    if (e.call.notification) return;
    if (!rpcMethodAllowed(e.call.method)) return void results.push(rpcError(e.call.id, RPC_REFUSED_CODE, rpcRefusal(e.call.method), { status: 403, code: 'RPC_METHOD_REFUSED', method: e.call.method }));
    const a = answers.get(i) as Record<string, unknown> | undefined;
    if (!a) return void results.push(rpcError(e.call.id, -32603, `Node ${node.nodeId} gave no answer to this call.`));
    results.push({ ...a, id: e.call.id });
  });
  if (refused.length) await recordRefused(input, networkId, refused);
  return { body: batch ? (results.length ? results : null) : (results[0] ?? null), refused };
}
