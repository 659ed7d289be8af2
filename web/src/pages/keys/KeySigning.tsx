// What a key does beyond being kept: sign data with it (POST /keys/{id}/sign-data, audited; the
// signature shown), issue its certificate from a CA key (POST /keys/{id}/sign), and revoke a
// certificate at the CA that issued it (POST /keys/{id}/revoke; the CA's CRL lists it, downloaded
// from the keys table or the organization's row). Opened from a row of the keys table.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Json } from '../../api/client';
import { ActionError, FieldError, invalid } from '../../components/states';
import { When } from '../../components/format';
import { bytesBase64 } from '../../components/base64';

type Key = Json<'/api/v1/keys', 'get'>['items'][number];
type Signature = Json<'/api/v1/keys/{keyID}/sign-data', 'post'>;

/** The standard base64 of a string's UTF-8 bytes. */
const utf8Base64 = (text: string): string => bytesBase64(new TextEncoder().encode(text));

export function SignData({ k, onDone }: { k: Key; onDone: () => void }) {
  const [data, setData] = useState('');
  const [encoding, setEncoding] = useState<'text' | 'base64'>('text');
  const [hash, setHash] = useState('');
  const [ethereum, setEthereum] = useState('');
  const secp256k1 = k.curve === 'secp256k1';
  const m = useMutation({
    mutationFn: (): Promise<Signature> =>
      unwrap(
        api.POST('/api/v1/keys/{keyID}/sign-data', {
          params: { path: { keyID: k.id } },
          body: {
            data: encoding === 'text' ? utf8Base64(data) : data.replace(/\s+/g, ''),
            ...(hash ? { hash: hash as 'sha256' | 'sha384' | 'sha512' } : {}),
            ...(ethereum ? { ethereum: ethereum as 'keccak256' | 'personal' } : {}),
          },
        }),
      ),
  });
  const s = m.data;
  return (
    <form
      className="card form-grid"
      aria-labelledby="sign-data-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="sign-data-title">Sign data with {k.name}</h3>
      <p className="hint">
        {k.algorithm}
        {k.curve ? ` ${k.curve}` : k.keySize ? ` ${k.keySize}` : ''}, in the provider {k.provider.name}. The private key never leaves the provider; each signature is kept in the audit log.
      </p>
      <label>
        Data to sign
        <textarea {...invalid(m.error, 'data')} className="code" required rows={4} spellCheck={false} value={data} onChange={(e) => setData(e.target.value)} />
        <FieldError error={m.error} field="data" />
      </label>
      <label>
        The data is
        <select value={encoding} onChange={(e) => setEncoding(e.target.value as 'text' | 'base64')}>
          <option value="text">Text (its UTF-8 bytes are signed)</option>
          <option value="base64">Base64 (the bytes it encodes are signed)</option>
        </select>
      </label>
      {k.algorithm !== 'Ed25519' && !ethereum ? (
        <label>
          Hash
          <select {...invalid(m.error, 'hash')} value={hash} onChange={(e) => setHash(e.target.value)}>
            <option value="">The algorithm's own ({k.algorithm === 'RSA' ? 'sha256' : k.curve === 'P-384' ? 'sha384' : k.curve === 'P-521' ? 'sha512' : 'sha256'})</option>
            <option value="sha256">sha256</option>
            <option value="sha384">sha384</option>
            <option value="sha512">sha512</option>
          </select>
          <FieldError error={m.error} field="hash" />
        </label>
      ) : null}
      {secp256k1 ? (
        <label>
          Ethereum signature
          <select {...invalid(m.error, 'ethereum')} value={ethereum} onChange={(e) => setEthereum(e.target.value)}>
            <option value="">No (a plain ECDSA signature)</option>
            <option value="keccak256">Over keccak256 of the data</option>
            <option value="personal">personal_sign (EIP-191)</option>
          </select>
          <FieldError error={m.error} field="ethereum" />
        </label>
      ) : null}
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Signing…' : 'Sign'}
        </button>
        <button type="button" onClick={onDone}>
          Close
        </button>
      </div>
      {s ? (
        <section aria-labelledby="signature-title">
          <h4 id="signature-title">Signature</h4>
          <dl className="facts" data-testid="signature">
            <dt>Algorithm</dt>
            <dd>
              {s.algorithm}
              {s.curve ? ` ${s.curve}` : ''}
            </dd>
            <dt>Hash</dt>
            <dd>{s.hash ?? 'none (the data itself)'}</dd>
            <dt>Format</dt>
            <dd>{s.signatureFormat}</dd>
            <dt>Signature (base64)</dt>
            <dd>
              <code className="hash" data-testid="signature-base64">
                {s.signature}
              </code>
            </dd>
            {s.r ? (
              <>
                <dt>r</dt>
                <dd>
                  <code className="hash">{s.r}</code>
                </dd>
                <dt>s</dt>
                <dd>
                  <code className="hash">{s.s}</code>
                </dd>
              </>
            ) : null}
            {s.ethereumAddress ? (
              <>
                <dt>Ethereum address</dt>
                <dd>
                  <code>{s.ethereumAddress}</code>
                </dd>
              </>
            ) : null}
            {s.ethereum ? (
              <>
                <dt>Ethereum signature ({s.ethereum.mode})</dt>
                <dd>
                  <code className="hash">{s.ethereum.signature}</code> <small>(v {s.ethereum.v}, digest {s.ethereum.digest})</small>
                </dd>
              </>
            ) : null}
          </dl>
        </section>
      ) : null}
    </form>
  );
}

/** Issue the key's certificate, signed by a CA key (the organization's signing CA by default). */
export function IssueCertificate({ k, onDone }: { k: Key; onDone: () => void }) {
  const qc = useQueryClient();
  const cas = useQuery({ queryKey: ['keys', 'ca'], queryFn: () => unwrap(api.GET('/api/v1/keys', { params: { query: { isCA: true, limit: 500 } } })) });
  const [caKeyId, setCaKeyId] = useState('');
  const [commonName, setCommonName] = useState(k.name.slice(0, 64));
  const [validityDays, setValidityDays] = useState('365');
  const [isCA, setIsCA] = useState(false);
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/keys/{keyID}/sign', {
          params: { path: { keyID: k.id } },
          body: { commonName, validityDays: Number(validityDays), ...(caKeyId ? { caKeyId: Number(caKeyId) } : {}), ...(isCA ? { isCA: true } : {}) },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['keys'] }),
  });
  const issued = m.data?.certificate;
  return (
    <form
      className="card form-grid"
      aria-labelledby="issue-cert-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="issue-cert-title">Issue certificate for {k.name}</h3>
      <p className="hint">The new certificate replaces the key's current one{k.certificate ? ` (serial ${k.certificate.serialNumber})` : ''}. It cannot end after the CA's own certificate.</p>
      <label>
        Issuing CA key
        <select {...invalid(m.error, 'caKeyId')} value={caKeyId} onChange={(e) => setCaKeyId(e.target.value)}>
          <option value="">{k.organizationId ? "The organization's signing CA" : 'Choose a CA key'}</option>
          {(cas.data?.items ?? [])
            .filter((c) => c.certificate)
            .map((c) => (
              <option key={c.id} value={c.id}>
                {c.id === k.id ? `${c.name} itself (self-signed)` : c.name}
              </option>
            ))}
        </select>
        <FieldError error={m.error} field="caKeyId" />
      </label>
      <label>
        Common name
        <input {...invalid(m.error, 'commonName')} required maxLength={64} value={commonName} onChange={(e) => setCommonName(e.target.value)} />
        <FieldError error={m.error} field="commonName" />
      </label>
      <label>
        Validity (days)
        <input {...invalid(m.error, 'validityDays')} type="number" required min={1} max={36500} value={validityDays} onChange={(e) => setValidityDays(e.target.value)} />
        <FieldError error={m.error} field="validityDays" />
      </label>
      <label className="inline">
        <input type="checkbox" checked={isCA} onChange={(e) => setIsCA(e.target.checked)} />A CA certificate (it may issue certificates itself)
      </label>
      <ActionError error={m.error} />
      {issued ? (
        <p role="status" className="verdict valid">
          Issued: serial <code>{issued.serialNumber}</code>, {issued.subject}, valid until <When at={issued.notAfter} />.
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Issuing…' : 'Issue certificate'}
        </button>
        <button type="button" onClick={onDone}>
          {issued ? 'Close' : 'Cancel'}
        </button>
      </div>
    </form>
  );
}

const REASONS = ['unspecified', 'keyCompromise', 'cACompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'certificateHold', 'privilegeWithdrawn'] as const;

/** Whether the key's own certificate can be revoked by a CA of this server (issued by another key of it). */
export function revocable(k: Key): boolean {
  return Boolean(k.certificate && k.certificate.issuerKeyId !== null && k.certificate.issuerKeyId !== k.id);
}

/** Revoke the key's certificate at its CA or, for a CA key, a serial it issued; a 409 (already revoked) said. */
export function Revoke({ k, onDone }: { k: Key; onDone: () => void }) {
  const qc = useQueryClient();
  const own = revocable(k);
  const [serial, setSerial] = useState('');
  const [reason, setReason] = useState<(typeof REASONS)[number]>('unspecified');
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/keys/{keyId}/revoke', { params: { path: { keyId: k.id } }, body: { reason, ...(serial.trim() ? { serialNumber: serial.trim() } : {}) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['keys'] }),
  });
  const again = m.error instanceof ApiError && m.error.status === 409;
  return (
    <form
      className="card form-grid"
      aria-labelledby="revoke-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="revoke-title">Revoke a certificate of {k.name}</h3>
      <p>
        {own ? `Without a serial number: this key's certificate (serial ${k.certificate!.serialNumber}) is revoked at the CA that issued it. ` : ''}
        {k.isCA ? 'With a serial number: a certificate this CA issued. ' : ''}
        The CA's revocation list names it from then on; this cannot be undone.
      </p>
      {k.isCA ? (
        <label>
          Serial number {own ? '(optional)' : ''}
          <input {...invalid(m.error, 'serialNumber')} className="code" required={!own} pattern="[0-9A-Fa-f:]+" value={serial} onChange={(e) => setSerial(e.target.value)} />
          <FieldError error={m.error} field="serialNumber" />
        </label>
      ) : null}
      <label>
        Reason
        <select {...invalid(m.error, 'reason')} value={reason} onChange={(e) => setReason(e.target.value as (typeof REASONS)[number])}>
          {REASONS.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <FieldError error={m.error} field="reason" />
      </label>
      {again ? (
        <p className="action-error" role="alert">
          Already revoked (409): {(m.error as ApiError).message}
        </p>
      ) : (
        <ActionError error={m.error} />
      )}
      {m.data ? (
        <p role="status" className="verdict valid">
          Revoked serial <code>{m.data.serialNumber}</code> ({m.data.reason}) at <When at={m.data.revokedAt} />; the CA's revocation list names it.
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="danger" disabled={m.isPending}>
          {m.isPending ? 'Revoking…' : 'Revoke'}
        </button>
        <button type="button" onClick={onDone}>
          {m.data ? 'Close' : 'Cancel'}
        </button>
      </div>
    </form>
  );
}
