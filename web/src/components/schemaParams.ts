// The plugin deploy form's values (SchemaForm.tsx): each parameter's starting value from its
// JSON Schema default, and the parameters sent to POST /plugins/{name}/deploy.
export interface ParamSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: ParamSchema;
  'x-source'?: string;
}

export interface ObjectSchema {
  type?: 'object';
  properties?: Record<string, ParamSchema>;
  required?: string[];
}

export interface SourceOption {
  value: number;
  label: string;
}

/** The choices for the x-source kinds: consortium-key (client identity keys), consortium-peer (peer nodes). */
export type SourceOptions = Record<string, SourceOption[]>;

export type FormValues = Record<string, string | boolean | number[] | string[]>;

export const typeOf = (p: ParamSchema): string => (Array.isArray(p.type) ? (p.type.find((t) => t !== 'null') ?? 'string') : (p.type ?? 'string'));

/** The form's starting values: each parameter's default, as the inputs hold it. */
export function initialValues(schema: ObjectSchema, previous?: Record<string, unknown>): FormValues {
  const out: FormValues = {};
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    const v = previous && name in previous && !p['x-source'] ? previous[name] : p.default;
    const t = typeOf(p);
    if (p['x-source']) out[name] = [];
    else if (t === 'boolean') out[name] = v === true;
    else if (t === 'array') out[name] = Array.isArray(v) ? v.map(String) : [];
    else out[name] = v === undefined || v === null ? '' : String(v);
  }
  return out;
}

/**
 * The parameters to send: numbers as numbers, empty optional fields left out (the server fills
 * defaults), an x-source consortium-key as one id, consortium-peer as a list of ids. Problems the
 * browser can see before sending (a required field empty, not a number) by field name.
 */
export function toParameters(schema: ObjectSchema, values: FormValues): { parameters: Record<string, unknown>; issues: Record<string, string> } {
  const parameters: Record<string, unknown> = {};
  const issues: Record<string, string> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    const v = values[name];
    const t = typeOf(p);
    if (p['x-source']) {
      const ids = (v as number[] | undefined) ?? [];
      if (ids.length === 0) {
        if (required.has(name)) issues[name] = 'required: pick one';
        continue;
      }
      parameters[name] = t === 'array' ? ids : ids[0];
    } else if (t === 'boolean') {
      parameters[name] = v === true;
    } else if (t === 'array') {
      const list = (v as string[]).map((x) => x.trim()).filter(Boolean);
      if (list.length) parameters[name] = typeOf(p.items ?? {}) === 'integer' || typeOf(p.items ?? {}) === 'number' ? list.map(Number) : list;
      else if (required.has(name)) issues[name] = 'required';
    } else {
      const s = String(v ?? '').trim();
      if (s === '') {
        if (required.has(name)) issues[name] = 'required';
        continue;
      }
      if (t === 'integer' || t === 'number') {
        const n = Number(s);
        if (!Number.isFinite(n) || (t === 'integer' && !Number.isInteger(n))) issues[name] = t === 'integer' ? 'must be a whole number' : 'must be a number';
        else parameters[name] = n;
      } else parameters[name] = s;
    }
  }
  return { parameters, issues };
}

