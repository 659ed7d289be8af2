// The configuration fields of a ledgerX node in the node create form: an orderer group (four
// arma roles) or a committer (five services). Ports left empty are allocated by the service
// (gRPC base, then +0..+3 or +0..+4; monitoring from base + 100); the config object is handed up
// as it changes. Nothing starts at creation: the roles start when they join a network.
import { useEffect, useState } from 'react';
import { COMMITTER_SERVICES, ORDERER_ROLES, ROLE_LABEL } from './queries';

export type LedgerXKind = 'LEDGERX_ORDERER_GROUP' | 'LEDGERX_COMMITTER';
export type LedgerXConfig = Record<string, string | number>;

export function LedgerXNodeFields({ kind, onConfig }: { kind: LedgerXKind; onConfig: (c: LedgerXConfig) => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const roles: readonly string[] = kind === 'LEDGERX_ORDERER_GROUP' ? ORDERER_ROLES : COMMITTER_SERVICES;
  const defaultBase = kind === 'LEDGERX_ORDERER_GROUP' ? 7050 : 7350;
  useEffect(() => {
    // Only this kind's fields: values typed for the other kind before switching stay out.
    const keys = new Set(['externalIp', 'grpcPort', ...roles.flatMap((r) => [`${r}Port`, `${r}MonitoringPort`])]);
    const c: LedgerXConfig = {};
    for (const [k, v] of Object.entries(values)) {
      if (!keys.has(k)) continue;
      const t = v.trim();
      if (!t) continue;
      c[k] = k === 'externalIp' ? t : Number(t);
    }
    onConfig(c);
  }, [values, onConfig, roles]);
  const field = (key: string, label: string, placeholder: string) => (
    <label key={key}>
      {label}
      <input type="number" min={key.endsWith('MonitoringPort') ? 0 : 1024} max={65535} value={values[key] ?? ''} placeholder={placeholder} onChange={(e) => setValues({ ...values, [key]: e.target.value })} />
    </label>
  );
  return (
    <fieldset className="form-grid">
      <legend>{kind === 'LEDGERX_ORDERER_GROUP' ? 'Orderer group (router, batcher, consenter, assembler)' : 'Committer (sidecar, coordinator, validator-committer, verifier, query service)'}</legend>
      <label>
        External IP
        <input value={values.externalIp ?? ''} placeholder="127.0.0.1" pattern="\d{1,3}(\.\d{1,3}){3}" onChange={(e) => setValues({ ...values, externalIp: e.target.value })} aria-describedby="lx-ip-help" />
        <small id="lx-ip-help">The IPv4 address the {kind === 'LEDGERX_ORDERER_GROUP' ? 'roles' : 'services'} are reached at; the metrics URLs use it.</small>
      </label>
      {field('grpcPort', 'gRPC base port', `${defaultBase} (moved up until free)`)}
      <details>
        <summary>Ports of each {kind === 'LEDGERX_ORDERER_GROUP' ? 'role' : 'service'} (optional)</summary>
        <div className="form-grid">
          {roles.map((r, i) => field(`${r}Port`, `${ROLE_LABEL[r]} gRPC port`, `base + ${i}`))}
          {roles.map((r, i) => field(`${r}MonitoringPort`, `${ROLE_LABEL[r]} monitoring port`, `base + ${100 + i}`))}
        </div>
      </details>
      {kind === 'LEDGERX_COMMITTER' ? (
        <p className="muted">Its database: a PostgreSQL database and user made in the service's own PostgreSQL (the password derived from the key encryption key, never shown).</p>
      ) : (
        <p className="muted">Each role gets an identity and a TLS key from the organization's CAs.</p>
      )}
      <p className="muted">Nothing starts now: the {kind === 'LEDGERX_ORDERER_GROUP' ? 'roles start when the group joins' : 'services start when the committer joins'} a ledgerX network (from the network's page).</p>
    </fieldset>
  );
}
