// The configuration fields of a ledgerX node in the node create form: an orderer group (four
// arma roles) or a committer (five services). Ports left empty are allocated by the service
// (gRPC base, then +0..+3 or +0..+4; monitoring from base + 100); the engine is the service's
// default unless picked; a committer's database is made in the service's PostgreSQL unless a
// connection string is given (a secret: a password field, never shown again). The config object
// is handed up as it changes; the API's refusal of a field is shown beside it (`errors`, keyed
// by the config field). Nothing starts at creation: the roles start when they join a network.
import { useEffect, useState } from 'react';
import { COMMITTER_SERVICES, ORDERER_ROLES, ROLE_LABEL } from './queries';
import { useShownFields } from '../../components/states';

export type LedgerXKind = 'LEDGERX_ORDERER_GROUP' | 'LEDGERX_COMMITTER';
export type LedgerXConfig = Record<string, string | number>;

/** `refusal`: the create's error, whose config fields these fields show (`errors`) and the form's ActionError then leaves out. */
export function LedgerXNodeFields({ kind, onConfig, errors = {}, refusal = null }: { kind: LedgerXKind; onConfig: (c: LedgerXConfig) => void; errors?: Record<string, string>; refusal?: unknown }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const roles: readonly string[] = kind === 'LEDGERX_ORDERER_GROUP' ? ORDERER_ROLES : COMMITTER_SERVICES;
  const defaultBase = kind === 'LEDGERX_ORDERER_GROUP' ? 7050 : 7350;
  const fieldKeys = ['externalIp', 'grpcPort', 'engine', ...(kind === 'LEDGERX_COMMITTER' ? ['databaseUrl'] : []), ...roles.flatMap((r) => [`${r}Port`, `${r}MonitoringPort`])];
  useShownFields(refusal, fieldKeys.map((k) => `config.${k}`));
  useEffect(() => {
    // Only this kind's fields: values typed for the other kind before switching stay out.
    const keys = new Set(fieldKeys);
    const c: LedgerXConfig = {};
    for (const [k, v] of Object.entries(values)) {
      if (!keys.has(k)) continue;
      const t = v.trim();
      if (!t) continue;
      c[k] = k === 'externalIp' || k === 'engine' || k === 'databaseUrl' ? t : Number(t);
    }
    onConfig(c);
  }, [values, onConfig, roles, kind]); // fieldKeys follows kind and roles
  // A refused value replaces the field's help (as in NodeConfigFields), the control described by it.
  const error = (key: string) => (errors[key] ? { 'aria-invalid': true as const, 'aria-describedby': `lx-${key}-help` } : {});
  const help = (key: string, text?: string) =>
    errors[key] || text ? (
      <small id={`lx-${key}-help`} className={errors[key] ? 'error-text' : undefined} data-testid={errors[key] ? `field-error-${key}` : undefined}>
        {errors[key] ?? text}
      </small>
    ) : null;
  const field = (key: string, label: string, placeholder: string) => (
    <label key={key}>
      {label}
      <input type="number" min={key.endsWith('MonitoringPort') ? 0 : 1024} max={65535} value={values[key] ?? ''} placeholder={placeholder} onChange={(e) => setValues({ ...values, [key]: e.target.value })} {...error(key)} />
      {help(key)}
    </label>
  );
  return (
    <fieldset className="form-grid">
      <legend>{kind === 'LEDGERX_ORDERER_GROUP' ? 'Orderer group (router, batcher, consenter, assembler)' : 'Committer (sidecar, coordinator, validator-committer, verifier, query service)'}</legend>
      <label>
        External IP
        <input value={values.externalIp ?? ''} placeholder="127.0.0.1" pattern="\d{1,3}(\.\d{1,3}){3}" onChange={(e) => setValues({ ...values, externalIp: e.target.value })} aria-describedby="lx-externalIp-help" aria-invalid={errors.externalIp ? true : undefined} />
        {help('externalIp', `The IPv4 address the ${kind === 'LEDGERX_ORDERER_GROUP' ? 'roles' : 'services'} are reached at; the metrics URLs use it.`)}
      </label>
      {field('grpcPort', 'gRPC base port', `${defaultBase} (moved up until free)`)}
      <details>
        <summary>Ports of each {kind === 'LEDGERX_ORDERER_GROUP' ? 'role' : 'service'} (optional)</summary>
        <div className="form-grid">
          {roles.map((r, i) => field(`${r}Port`, `${ROLE_LABEL[r]} gRPC port`, `base + ${i}`))}
          {roles.map((r, i) => field(`${r}MonitoringPort`, `${ROLE_LABEL[r]} monitoring port`, `base + ${100 + i}`))}
        </div>
      </details>
      <label>
        Engine
        <select value={values.engine ?? ''} onChange={(e) => setValues({ ...values, engine: e.target.value })} {...error('engine')}>
          <option value="">The service's default (LNM_NODE_ENGINE)</option>
          <option value="process">Process: the Fabric-X programs on this machine</option>
          <option value="docker">Docker: their images on this machine's Docker Engine</option>
        </select>
        {help('engine')}
      </label>
      {kind === 'LEDGERX_COMMITTER' ? (
        <label>
          Database connection string (optional)
          <input
            type="password"
            autoComplete="off"
            maxLength={2000}
            placeholder="postgres://user:password@host:5432/database"
            value={values.databaseUrl ?? ''}
            onChange={(e) => setValues({ ...values, databaseUrl: e.target.value })}
            aria-describedby="lx-databaseUrl-help"
            aria-invalid={errors.databaseUrl ? true : undefined}
          />
          {help('databaseUrl', "Left empty: a PostgreSQL database and user made in the service's own PostgreSQL (the password derived from the key encryption key). Given: that database, checked now (one that cannot be reached is refused); its password is kept sealed and never shown, and deleting the committer leaves the database alone.")}
        </label>
      ) : (
        <p className="muted">Each role gets an identity and a TLS key from the organization's CAs.</p>
      )}
      <p className="muted">Nothing starts now: the {kind === 'LEDGERX_ORDERER_GROUP' ? 'roles start when the group joins' : 'services start when the committer joins'} a ledgerX network (from the network's page).</p>
    </fieldset>
  );
}
