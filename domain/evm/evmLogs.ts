// Values and events of a contract's ABI as JSON, for every answer that shows them: a query's
// return values, an invoke's events (adapters/evm/evmContractDeployer.ts) and the explorer's
// transaction logs (application/evm/evmExplorer.ts). Integers become decimal strings, named
// tuples objects; an event the ABI does not describe stays raw (topics and data).
import { Interface, Result } from 'ethers';

export function abiJson(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Result) {
    const keys = (() => {
      try {
        return Object.keys(v.toObject());
      } catch {
        return [];
      }
    })();
    const named = keys.length === v.length && keys.every((k) => k && !/^_?\d+$/.test(k));
    return named ? Object.fromEntries(keys.map((k, i) => [k, abiJson(v[i])])) : Array.from(v, abiJson);
  }
  if (Array.isArray(v)) return v.map(abiJson);
  return v;
}

export interface DecodedEvent {
  /** The event, when the ABI describes it. */
  name: string | null;
  args: Record<string, unknown> | null;
  topics: string[];
  data: string;
}

/** A log emitted by a contract, decoded with its ABI when the ABI describes it; raw otherwise. */
export function decodeEvent(iface: Interface | null, log: { topics: readonly string[]; data: string }): DecodedEvent {
  const topics = [...log.topics];
  try {
    const parsed = iface ? iface.parseLog({ topics, data: log.data }) : null;
    if (parsed) return { name: parsed.name, args: Object.fromEntries(parsed.fragment.inputs.map((input, i) => [input.name || String(i), abiJson(parsed.args[i])])), topics, data: log.data };
  } catch {
    // an event the ABI does not describe, or data that does not decode: shown raw
  }
  return { name: null, args: null, topics, data: log.data };
}

/** An ABI as an ethers Interface, or null when it cannot be read (then its logs are shown raw). */
export function abiInterface(abi: unknown[] | null): Interface | null {
  if (!abi?.length) return null;
  try {
    return new Interface(abi as never);
  } catch {
    return null;
  }
}

/**
 * Why a call reverted, from the revert data the node answered with (its JSON-RPC error's data):
 * Error(string)'s message, a panic, or a custom error of the ABI with its first argument; else the
 * node's own words. Used by a contract query (adapters/evm/evmContractDeployer.ts) and by the
 * explorer for a mined transaction that reverted (replayed as a call).
 */
export function callRevertReason(iface: Interface | null, rpcData: unknown, nodeMessage: string, to: string, data: string): string {
  const revert = typeof rpcData === 'string' ? rpcData : typeof (rpcData as { data?: unknown })?.data === 'string' ? (rpcData as { data: string }).data : null;
  if (revert && /^0x([0-9a-fA-F]{2})*$/.test(revert) && revert.length > 2) {
    try {
      const e = (iface ?? new Interface([])).makeError(revert, { to, data }) as { reason?: string | null; revert?: { args?: unknown[] } | null; shortMessage?: string };
      if (e.reason) return e.reason;
      if (e.revert?.args?.length) return String(e.revert.args[0]);
      if (e.shortMessage) return e.shortMessage;
    } catch {
      // undecodable revert data: the node's own words below
    }
  }
  return nodeMessage.replace(/^execution reverted:?\s*/i, '') || nodeMessage;
}
