// Keeping block 0 of a saved anvil chain the block built from the genesis.
//
// Started with --state (no --init), anvil first builds a placeholder block 0 from its flags
// (timestamp = wall clock at start, coinbase zero), then loads the saved blocks over it. The
// placeholder stays in its block map, and every later dump (on exit and every --state-interval)
// writes it next to the real block 0, one more per start. anvil 1.7.1 writes blocks in hash-map
// order and on load the last block 0 read wins eth_getBlockByNumber(0) and "earliest", so after
// a restart block 0 is, about half the time, the previous start's placeholder: a hash that
// changes with every start and that block 1's parentHash does not name. (Upstream sorts the
// canonical block last since foundry PR 16189; 1.7.1 predates it.) Passing --timestamp would
// make the placeholder equal block 0 but also restarts anvil's clock at the genesis timestamp,
// so mined blocks would carry 1970 timestamps.
//
// So before each start the launcher drops the block 0 entries that are not the genesis block:
// anvil takes only timestamp, coinbase, baseFeePerGas and number of the genesis file into
// block 0 (see domain/networks/genesisBlockHash.ts), so those fields tell the two apart. The
// file is edited as text, entry by entry, because it holds u64/u128 JSON numbers that a
// JSON.parse/stringify round trip would round.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { UnavailableError } from '../../domain/shared/errors.ts';
import { genesisField, genesisFixedBytes, genesisQuantity, type GenesisJson } from '../../domain/evm/genesisJson.ts';

/** The block 0 fields anvil takes from the genesis file (the rest come from its flags). */
export interface AnvilGenesisMarks {
  number: bigint;
  timestamp: bigint;
  coinbase: string;
  /** only when the genesis names one; otherwise anvil's default */
  baseFee?: bigint;
}

export function anvilGenesisMarks(genesis: GenesisJson): AnvilGenesisMarks {
  const baseFee = genesisField(genesis, 'baseFeePerGas');
  const coinbase = genesisFixedBytes(genesisField(genesis, 'coinbase'), 'coinbase', 20);
  return {
    number: genesisQuantity(genesisField(genesis, 'number') ?? '0x0', 'number'),
    timestamp: genesisQuantity(genesisField(genesis, 'timestamp') ?? '0x0', 'timestamp'),
    coinbase: '0x' + Buffer.from(coinbase).toString('hex'),
    baseFee: baseFee === undefined || baseFee === null ? undefined : genesisQuantity(baseFee, 'baseFeePerGas'),
  };
}

/** The marks as text: how the pod's cleanup (anvilStateCleanupScript) gets them on its command line. */
export function marksJson(marks: AnvilGenesisMarks): string {
  return JSON.stringify({ number: String(marks.number), timestamp: String(marks.timestamp), coinbase: marks.coinbase, ...(marks.baseFee === undefined ? {} : { baseFee: String(marks.baseFee) }) });
}

type MarksIn = { number: bigint | string; timestamp: bigint | string; coinbase: string; baseFee?: bigint | string };

/**
 * The filter itself, self-contained (no reference outside its body, plain Errors): the same
 * function runs here and, as its source text, in a node's pod (anvilStateCleanupScript).
 */
function placeholderFilter(text: string, marksIn: MarksIn): { text: string; dropped: number } {
  const marks = { number: BigInt(marksIn.number), timestamp: BigInt(marksIn.timestamp), coinbase: marksIn.coinbase.toLowerCase(), baseFee: marksIn.baseFee === undefined ? undefined : BigInt(marksIn.baseFee) };
  const isWs = (c: string) => c === ' ' || c === '\n' || c === '\r' || c === '\t';
  const skipWs = (i: number): number => {
    while (i < text.length && isWs(text[i]!)) i++;
    return i;
  };
  const skipString = (i: number): number => {
    for (i++; i < text.length; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '"') return i + 1;
    }
    throw new Error('unterminated string');
  };
  /** Index just past the JSON value starting at i. */
  const skipValue = (i: number): number => {
    const c = text[i];
    if (c === '"') return skipString(i);
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < text.length) {
        const d = text[i]!;
        if (d === '"') {
          i = skipString(i);
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) return i + 1;
        }
        i++;
      }
      throw new Error('unterminated object or array');
    }
    while (i < text.length && !isWs(text[i]!) && text[i] !== ',' && text[i] !== '}' && text[i] !== ']') i++;
    return i;
  };
  const expect = (i: number, c: string): number => {
    if (text[i] !== c) throw new Error(`expected ${c} at ${i}`);
    return i + 1;
  };
  /** Where the top-level array "blocks" and each of its items sit in the text, or null if absent. */
  const blocksArray = (): { open: number; close: number; items: Array<[number, number]> } | null => {
    let i = expect(skipWs(0), '{');
    for (;;) {
      i = skipWs(i);
      if (text[i] === '}') return null;
      if (text[i] !== '"') throw new Error(`expected a key at ${i}`);
      const keyEnd = skipString(i);
      const name = JSON.parse(text.slice(i, keyEnd)) as string;
      i = skipWs(expect(skipWs(keyEnd), ':'));
      if (name === 'blocks' && text[i] === '[') {
        const open = i;
        const items: Array<[number, number]> = [];
        i = skipWs(i + 1);
        if (text[i] === ']') return { open, close: i, items };
        for (;;) {
          const start = skipWs(i);
          const end = skipValue(start);
          items.push([start, end]);
          i = skipWs(end);
          if (text[i] === ']') return { open, close: i, items };
          i = expect(i, ',');
        }
      }
      i = skipWs(skipValue(i));
      if (text[i] === '}') return null;
      i = expect(i, ',');
    }
  };
  const quantity = (v: string | undefined): bigint | undefined => (v === undefined ? undefined : BigInt(v));
  type Header = { number?: string; timestamp?: string; miner?: string; baseFeePerGas?: string };
  const isGenesisBlock = (h: Header) =>
    quantity(h.timestamp) === marks.timestamp && (h.miner ?? '').toLowerCase() === marks.coinbase && (marks.baseFee === undefined || quantity(h.baseFeePerGas) === marks.baseFee);

  const blocks = blocksArray();
  if (!blocks) return { text, dropped: 0 };
  const entries = blocks.items.map(([s, e]) => {
    const header = ((JSON.parse(text.slice(s, e)) as { header?: Header }).header ?? {}) as Header;
    const atGenesisHeight = quantity(header.number) === marks.number;
    return { raw: text.slice(s, e), atGenesisHeight, genesis: atGenesisHeight && isGenesisBlock(header) };
  });
  const atHeight = entries.filter((b) => b.atGenesisHeight);
  if (atHeight.length === 0) return { text, dropped: 0 };
  if (!atHeight.some((b) => b.genesis)) {
    throw new Error(
      `The saved anvil chain has no block ${marks.number} built from this network's genesis (timestamp ${marks.timestamp}, coinbase ${marks.coinbase}); ` +
        "started, it would report another genesis block hash. Remove the node's anvil-state.json to rebuild it from the genesis.",
    );
  }
  const kept = entries.filter((b) => !b.atGenesisHeight || b.genesis);
  if (kept.length === entries.length) return { text, dropped: 0 };
  return { text: text.slice(0, blocks.open + 1) + kept.map((b) => b.raw).join(',') + text.slice(blocks.close), dropped: entries.length - kept.length };
}

/**
 * The state file text without the placeholder blocks at the genesis height, and how many were
 * dropped. Throws when blocks at that height exist but none is the genesis block: that chain
 * was not built from this genesis, and running it would report another block 0.
 */
export function withoutPlaceholderGenesisBlocks(text: string, marks: AnvilGenesisMarks): { text: string; dropped: number } {
  try {
    return placeholderFilter(text, marks);
  } catch (err) {
    throw new UnavailableError((err as Error).message);
  }
}

/**
 * The same cleanup as a Node.js program, for a node whose state file this machine cannot reach
 * (a pod's volume on a Kubernetes cluster: run as `node -e <script> <state file> <marksJson>` in an
 * init container, before anvil). A missing state file (a new volume) is left alone; a chain not
 * built from this genesis exits 1 with the reason on stderr. The filter's source text is taken
 * from the function above (one implementation); `__name` is defined in case the compiler kept
 * function names through a helper of that name (esbuild's keepNames).
 */
export function anvilStateCleanupScript(): string {
  return [
    'var __name = (f) => f;',
    `const placeholderFilter = ${placeholderFilter.toString()};`,
    "const fs = require('node:fs');",
    'const [statePath, marks] = process.argv.slice(1);',
    'if (fs.existsSync(statePath)) {',
    '  try {',
    "    const { text, dropped } = placeholderFilter(fs.readFileSync(statePath, 'utf8'), JSON.parse(marks));",
    "    if (dropped > 0) { fs.writeFileSync(statePath + '.tmp', text); fs.renameSync(statePath + '.tmp', statePath); }",
    "    console.log('anvil state: ' + dropped + ' placeholder block 0 dropped');",
    '  } catch (err) { console.error(err.message); process.exit(1); }',
    '}',
  ].join('\n');
}

/** Rewrites the state file without placeholder genesis blocks; returns how many it dropped. */
export async function dropPlaceholderGenesisBlocks(statePath: string, genesis: GenesisJson): Promise<number> {
  const before = await readFile(statePath, 'utf8');
  const { text, dropped } = withoutPlaceholderGenesisBlocks(before, anvilGenesisMarks(genesis));
  if (dropped > 0) {
    await writeFile(`${statePath}.tmp`, text);
    await rename(`${statePath}.tmp`, statePath);
  }
  return dropped;
}
