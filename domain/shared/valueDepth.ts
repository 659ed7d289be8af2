// How deeply arrays and objects may nest in what a client sends: request bodies (counted on the
// text by http/jsonBody.ts) and documents parsed out of a string field (a YAML plugin
// descriptor), so that no recursive code (validation, templates, hashing) sees thousands of levels.
export const MAX_JSON_DEPTH = 64;

/** Whether arrays and objects in a parsed value nest more than `max` levels. Iterative. */
export function depthExceeds(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
