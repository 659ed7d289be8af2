// The fields a refusal names, by one spelling (no React, so the unit tests read it too): the
// API spells a body field body.a.b, /a/b, a.b or a[0].b (a schema error, a use case's details, a
// 409's context.field); FieldError, ActionError and useShownFields (states.tsx) match a.b, a.0.b.

/** A body field's one spelling: body.a.b, /a/b and a[0].b are a.b and a.0.b. */
export const fieldName = (f: string) => f.replace(/^(body\.|\/)/, '').replace(/\//g, '.').replace(/\[(\d+)\]/g, '.$1');

/** What an API refusal carries that names fields. */
export interface Refusal {
  status: number;
  message: string;
  details: Array<{ field: string; message: string }>;
  context: Record<string, unknown>;
}

/** Field messages of a refusal by field name: its details, and the field a 409 names (a port or name taken); `strip` drops a prefix such as "config.". */
export function refusalFields(r: Refusal, strip = ''): Record<string, string> {
  const name = (f: string) => {
    const n = fieldName(f);
    return strip && n.startsWith(strip) ? n.slice(strip.length) : n;
  };
  const out: Record<string, string> = Object.fromEntries(r.details.map((d) => [name(d.field), d.message]));
  const taken = r.context.field;
  if (r.status === 409 && typeof taken === 'string') out[name(taken)] = r.message;
  return out;
}

/**
 * Whether an API message only restates the field messages shown beside their fields (then
 * ActionError leaves it out): it holds each of them and gives no reason after one with a colon. A
 * committer database's "... cannot be reached: password authentication failed for user ..." says
 * more than its field's "cannot be reached"; a schema 400's "name must NOT have more than 63
 * characters; ..." does not.
 */
export function restatesFields(message: string, fieldMessages: Array<string | undefined>): boolean {
  const reasonAfter = (m: string) => {
    for (let i = message.indexOf(m); m && i >= 0; i = message.indexOf(m, i + 1)) if (/^:\s*\S/.test(message.slice(i + m.length))) return true;
    return false;
  };
  return fieldMessages.every((m) => m !== undefined && message.includes(m)) && !fieldMessages.some((m) => m !== undefined && reasonAfter(m));
}
