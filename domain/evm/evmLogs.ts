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
