// Custom request headers of webhooks and webhook notification providers carry credentials (an
// Authorization or API-key header is what they are for), so their values are secrets: sealed
// before they reach an event, and shown masked. A client that reads a webhook and sends its
// headers back unchanged sends the mask, which keeps the stored value.
//
// They go on the wire as given, so what would not be a header is refused when they are saved
// (issue 36): a name that is not an RFC 9110 token; a value with anything but tab, visible
// ASCII, space and obs-text (0x80-0xff), which is exactly what Node's http accepts (a CR, LF or
// NUL, or a character above U+00FF, would make every send throw ERR_INVALID_CHAR); and the
// hop-by-hop and framing headers the HTTP client owns (Host, Transfer-Encoding, Content-Length,
// Connection, Keep-Alive, Upgrade, TE, Trailer, Proxy-*). Messages name the header, never its
// value.
import { ValidationError, type FieldIssue } from './errors.ts';

export const HEADER_MASK = '********';

export const maskHeaders = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.keys(headers).map((name) => [name, HEADER_MASK]));

/** An RFC 9110 token: what a header name may be (the route schemas use it too). */
export const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";
/** Tab, visible ASCII, space and obs-text: what Node's http accepts in a header value (no CR, LF, NUL, DEL, nothing above U+00FF). */
export const HEADER_VALUE_PATTERN = '^[\\t\\x20-\\x7e\\x80-\\xff]*$';
const NAME = new RegExp(HEADER_NAME_PATTERN);
const VALUE = new RegExp(HEADER_VALUE_PATTERN);
/** Hop-by-hop and framing headers: the HTTP client sets them, a custom header may not. */
export const REFUSED_HEADER_NAMES = ['host', 'transfer-encoding', 'content-length', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer'];
const refusedName = (lower: string) => REFUSED_HEADER_NAMES.includes(lower) || lower.startsWith('proxy-');

/** What is wrong with each custom header that cannot be sent as given (empty: all can). */
export function headerIssues(headers: Record<string, string>, field: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const at = `${field}.${name}`;
    if (!NAME.test(name)) issues.push({ field: at, message: 'the name must be a token: letters, digits and !#$%&\'*+.^_`|~-' });
    else if (refusedName(name.toLowerCase())) issues.push({ field: at, message: 'a hop-by-hop or framing header (Host, Transfer-Encoding, Content-Length, Connection, Keep-Alive, Upgrade, TE, Trailer, Proxy-*) is set by the HTTP client, not as a custom header' });
    if (typeof value !== 'string' || !VALUE.test(value)) issues.push({ field: at, message: 'the value may hold only tab, visible ASCII, space and characters U+0080-U+00FF (no CR, LF, NUL or DEL)' });
  }
  return issues;
}

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
  const issues = headerIssues(Object.fromEntries(kept), field);
  if (issues.length) {
    const names = [...new Set(issues.map((i) => i.field.slice(field.length + 1)))];
    throw new ValidationError(`Custom header${names.length > 1 ? 's' : ''} ${names.join(', ')} cannot be sent as given: ${issues.map((i) => i.message).join('; ')}.`, issues);
  }
  return Object.fromEntries(kept);
}
