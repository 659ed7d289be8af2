// Text PostgreSQL cannot store: text and jsonb columns refuse the NUL character (U+0000), and a
// lone UTF-16 surrogate (U+D800-U+DFFF not in a pair) has no UTF-8 form. Input containing either
// is refused at validation (http/validation.ts); what the service records about a request it
// refused (audit data, request metadata) is made storable with storable() instead, so the
// refusal still leaves its audit trace.

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** The replacement for each unstorable character: U+FFFD, as a UTF-8 decoder would. */
export const REPLACEMENT = '\uFFFD';

export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

/**
 * Where the first unstorable string (a value or an object key) sits in a JSON-like value, as a
 * dotted path ('' for the value itself), or null when everything is storable. Iterative, so no
 * depth of nesting can overflow the stack.
 */
export function unstorablePath(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push([v[i], path ? `${path}.${i}` : String(i)]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        if (!isStorableText(k)) return at.replace(UNSTORABLE_ALL, REPLACEMENT);
        stack.push([child, at]);
      }
    }
  }
  return null;
}

/** A copy of a JSON-like value in which every unstorable character is replaced by U+FFFD. */
export function storable<T>(value: T): T {
  if (typeof value === 'string') return (isStorableText(value) ? value : value.replace(UNSTORABLE_ALL, REPLACEMENT)) as T;
  if (Array.isArray(value)) return value.map((v) => storable(v)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    // fromEntries defines own properties, so a key named __proto__ stays a key.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storable(v)])) as T;
  }
  return value;
}
