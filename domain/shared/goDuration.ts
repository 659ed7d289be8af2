// Go's time.ParseDuration in milliseconds: the durations Fabric, Fabric-X and SmartBFT read
// (consortium SmartBFT options, ledgerX ordering settings).
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration ("300ms", "1m30s", "-2h", "0"): milliseconds, or null when it is not one (or overflows). */
export function goDurationMs(text: string): number | null {
  const m = /^([-+]?)(.*)$/.exec(text)!;
  const body = m[2];
  if (body === '0') return 0;
  if (!body) return null;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < body.length) {
    re.lastIndex = pos;
    const part = re.exec(body);
    if (!part) return null;
    total += Number(part[1]) * UNIT_MS[part[2]];
    pos = re.lastIndex;
  }
  // Go's durations are int64 nanoseconds: longer ones (about 292 years) do not parse.
  if (total * 1e6 > 9_223_372_036_854_775_807) return null;
  return m[1] === '-' ? -total : total;
}
