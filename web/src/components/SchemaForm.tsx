// A form generated from a plugin descriptor's spec.parameters (JSON Schema draft-07, an object
// of named parameters). A small generator rather than a JSON Schema form library: parameters are
// a flat object of scalars, enums, string lists and the two x-source kinds, and an x-source
// parameter's schema describes the value the SERVICE resolves (an object of file paths), while
// the form must send an id picked from the keys or peers; a library would render the resolved
// object's fields and need a custom widget for each kind anyway, at the price of its own bundle
// (and ajv's). The server checks the parameters with ajv and answers 400 naming each field,
// which the form shows beside that field.
import type { ReactNode } from 'react';
import { typeOf, type FormValues, type ObjectSchema, type ParamSchema, type SourceOptions } from './schemaParams';

export { initialValues, toParameters, type FormValues, type ObjectSchema, type SourceOptions } from './schemaParams';

function hint(p: ParamSchema): string {
  const parts: string[] = [];
  if (p.minimum !== undefined && p.maximum !== undefined) parts.push(`${p.minimum} to ${p.maximum}`);
  else if (p.minimum !== undefined) parts.push(`at least ${p.minimum}`);
  else if (p.maximum !== undefined) parts.push(`at most ${p.maximum}`);
  if (p.default !== undefined && !p['x-source']) parts.push(`default ${JSON.stringify(p.default)}`);
  return parts.join('; ');
}

/** The inputs of every parameter, each labelled with its title (or name), its description and limits. */
export function SchemaFields({ schema, values, onChange, sources, errors, idPrefix }: { schema: ObjectSchema; values: FormValues; onChange: (v: FormValues) => void; sources: SourceOptions; errors: Record<string, string>; idPrefix: string }) {
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length === 0) return <p className="muted">This plugin takes no parameters.</p>;
  const set = (name: string, v: FormValues[string]) => onChange({ ...values, [name]: v });
  return (
    <>
      {entries.map(([name, p]) => {
        const id = `${idPrefix}-${name}`;
        const label = `${p.title ?? name}${required.has(name) ? '' : ' (optional)'}`;
        const describedBy = [p.description || hint(p) ? `${id}-help` : '', errors[name] ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
        const help: ReactNode = p.description || hint(p) ? (
          <span id={`${id}-help`} className="hint">
            {[p.description, hint(p)].filter(Boolean).join(' — ')}
          </span>
        ) : null;
        const error = errors[name] ? (
          <span id={`${id}-error`} className="error-text">
            {errors[name]}
          </span>
        ) : null;
        const t = typeOf(p);
        const source = p['x-source'];
        if (source) {
          const options = sources[source] ?? [];
          const picked = (values[name] as number[]) ?? [];
          const many = t === 'array';
          return (
            <label key={name} htmlFor={id}>
              {label} <span className="badge">{source === 'consortium-key' ? 'identity key' : source === 'consortium-peer' ? 'peers' : source}</span>
              <select
                id={id}
                multiple={many}
                size={many ? Math.min(6, Math.max(2, options.length)) : undefined}
                value={many ? picked.map(String) : String(picked[0] ?? '')}
                aria-describedby={describedBy}
                aria-invalid={errors[name] ? true : undefined}
                onChange={(e) => set(name, many ? Array.from(e.target.selectedOptions).map((o) => Number(o.value)) : e.target.value ? [Number(e.target.value)] : [])}
              >
                {!many ? <option value="">{options.length ? 'Pick one' : 'None available'}</option> : null}
                {options.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
              {help}
              {error}
            </label>
          );
        }
        if (t === 'boolean') {
          return (
            <label key={name} className="inline" htmlFor={id}>
              <input id={id} type="checkbox" checked={values[name] === true} aria-describedby={describedBy} onChange={(e) => set(name, e.target.checked)} />
              {label}
              {help}
              {error}
            </label>
          );
        }
        if (p.enum) {
          return (
            <label key={name} htmlFor={id}>
              {label}
              <select id={id} value={String(values[name] ?? '')} aria-describedby={describedBy} aria-invalid={errors[name] ? true : undefined} onChange={(e) => set(name, e.target.value)}>
                {!required.has(name) || p.default === undefined ? <option value="">—</option> : null}
                {p.enum.map((o) => (
                  <option key={String(o)} value={String(o)}>
                    {String(o)}
                  </option>
                ))}
              </select>
              {help}
              {error}
            </label>
          );
        }
        if (t === 'array') {
          return (
            <label key={name} htmlFor={id}>
              {label} (one per line)
              <textarea id={id} rows={3} value={((values[name] as string[]) ?? []).join('\n')} aria-describedby={describedBy} aria-invalid={errors[name] ? true : undefined} onChange={(e) => set(name, e.target.value.split('\n'))} />
              {help}
              {error}
            </label>
          );
        }
        const numeric = t === 'integer' || t === 'number';
        return (
          <label key={name} htmlFor={id}>
            {label}
            <input
              id={id}
              type={numeric ? 'number' : 'text'}
              step={t === 'integer' ? 1 : numeric ? 'any' : undefined}
              min={p.minimum}
              max={p.maximum}
              maxLength={p.maxLength}
              required={required.has(name)}
              value={String(values[name] ?? '')}
              placeholder={p.default !== undefined ? String(p.default) : undefined}
              aria-describedby={describedBy}
              aria-invalid={errors[name] ? true : undefined}
              onChange={(e) => set(name, e.target.value)}
            />
            {help}
            {error}
          </label>
        );
      })}
    </>
  );
}
