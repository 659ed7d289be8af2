// Reading a key provider's configuration object from a request body, shared by the Vault and
// AWS KMS parsers: the SPEC shows two spellings (`vaultConfig`/`awsKmsConfig`, or `config`),
// and issues name the spelling the caller used (`config.region`, `awsKmsConfig.awsRegion`).
import { ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';

export interface ProviderConfigBody {
  /** The body field the object came in: the named one or "config". */
  field: string;
  raw: Record<string, unknown>;
  issues: FieldIssue[];
  /** A trimmed string field; undefined when absent or empty, an issue when not a string. */
  str(name: string): string | undefined;
}

export function readProviderConfigBody(body: Record<string, unknown>, named: string, what: string): ProviderConfigBody {
  const field = body[named] !== undefined ? named : 'config';
  const raw = (body[named] ?? body.config) as Record<string, unknown> | undefined;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ValidationError(`${what} needs a ${named} (or config) object.`, [{ field: named, message: 'required object' }]);
  }
  const issues: FieldIssue[] = [];
  const str = (name: string): string | undefined => {
    const v = raw[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') {
      issues.push({ field: `${field}.${name}`, message: 'must be a string' });
      return undefined;
    }
    return v.trim();
  };
  return { field, raw, issues, str };
}
