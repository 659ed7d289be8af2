// Custom request headers of webhooks and webhook notification providers carry credentials (an
// Authorization or API-key header is what they are for), so their values are secrets: sealed
// before they reach an event, and shown masked. A client that reads a webhook and sends its
// headers back unchanged sends the mask, which keeps the stored value.
import { ValidationError } from './errors.ts';

export const HEADER_MASK = '********';

export const maskHeaders = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.keys(headers).map((name) => [name, HEADER_MASK]));

/** The headers to store: given values, where a value equal to the mask keeps the stored one (400 if there is none). */
export function mergeHeaders(given: Record<string, string>, stored: Record<string, string>, field: string): Record<string, string> {
  // Entries, not assignments: a header named __proto__ must stay a header.
  const kept: [string, string][] = [];
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(given)) {
    if (value !== HEADER_MASK) kept.push([name, value]);
    else if (Object.hasOwn(stored, name)) kept.push([name, stored[name]]);
    else unknown.push(name);
  }
  if (unknown.length) {
    throw new ValidationError(`${unknown.join(', ')}: the masked value ${HEADER_MASK} keeps a stored header value, and none is stored under that name; send the value itself.`, unknown.map((name) => ({ field: `${field}.${name}`, message: 'masked value with nothing stored' })));
  }
  return Object.fromEntries(kept);
}
