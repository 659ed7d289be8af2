// The inputs of a node's configuration fields (nodeConfig.ts: which fields, their checks). Each
// control is named by its label alone (aria-labelledby): the help under it is its description;
// a refused value (the page's check or the API's 400/409) replaces the help.
import { Fragment } from 'react';
import type { ConfigValues, Field } from './nodeConfig';


export function NodeConfigFields({ fields, values, onChange, errors, placeholders, idPrefix }: { fields: Field[]; values: ConfigValues; onChange: (v: ConfigValues) => void; errors: Record<string, string>; placeholders?: Record<string, string>; idPrefix: string }) {
  return (
    <>
      {fields.map((f) => {
        const id = `${idPrefix}-${f.key}`;
        const error = errors[f.key];
        return (
          <Fragment key={f.key}>
            <label>
              <span id={`${id}-label`}>{f.label}</span> <span className="muted">(optional)</span>
              {f.type === 'select' ? (
                <select name={f.key} value={values[f.key] ?? ''} onChange={(e) => onChange({ ...values, [f.key]: e.target.value })} aria-labelledby={`${id}-label`} aria-describedby={`${id}-help`}>
                  {f.options!.map(([v, l]) => (
                    <option key={v} value={v}>
                      {l}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  name={f.key}
                  inputMode={f.type === 'port' ? 'numeric' : undefined}
                  className={f.type === 'port' ? undefined : 'code'}
                  value={values[f.key] ?? ''}
                  placeholder={placeholders?.[f.key]}
                  onChange={(e) => onChange({ ...values, [f.key]: e.target.value })}
                  aria-invalid={error ? true : undefined}
                  aria-labelledby={`${id}-label`}
                  aria-describedby={`${id}-help`}
                />
              )}
              <small id={`${id}-help`} className={error ? 'error-text' : undefined} data-testid={error ? `field-error-${f.key}` : undefined}>
                {error ?? f.help}
              </small>
            </label>
          </Fragment>
        );
      })}
    </>
  );
}
