// Call a contract deployed through the service: pick the contract and one of its ABI's
// functions; a field per parameter; reads (view, pure) are queried (POST /sc/evm/contracts/{id}/query,
// no transaction) and their decoded values shown; writes are sent as a transaction signed by a key
// the service holds (/invoke), shown with block, gas and the events the contract emitted. A revert
// shows the contract's reason (the API's 400). "Use a deployed contract" (ContractAt) calls any
// contract at an address of the network with a pasted ABI, through the same form
// (POST /sc/evm/query and /sc/evm/invoke; nothing is recorded).
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap, type Json } from '../../api/client';
import { abiFunctions, argumentValue, type AbiFunction } from '../../components/abi';
import { ActionError, Empty, FieldError, invalid } from '../../components/states';

type Contract = Json<'/api/v1/networks/evm/{id}/contracts', 'get'>['items'][number];
type QueryAnswer = Json<'/api/v1/sc/evm/contracts/{contractId}/query', 'post'>;
type InvokeAnswer = Json<'/api/v1/sc/evm/contracts/{contractId}/invoke', 'post'>;
/** What a call goes to: a contract recorded by the service (its id), or one at an address with its ABI. */
type Target = { contractId: number } | { networkId: number; address: string; abi: unknown[] };

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

export function ContractCalls({ contracts }: { contracts: Contract[] }) {
  const callable = contracts.filter((c) => abiFunctions(c.abi).length > 0);
  const [contractId, setContractId] = useState<number | null>(null);
  const contract = callable.find((c) => c.id === contractId) ?? callable[0];
  if (!contract) return <Empty>No contract with an ABI to call: deploy one with its ABI.</Empty>;
  return (
    <section className="card" aria-labelledby="calls-title">
      <h3 id="calls-title">Call a contract</h3>
      <label>
        Contract
        <select value={contract.id} onChange={(e) => setContractId(Number(e.target.value))}>
          {callable.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({c.address})
            </option>
          ))}
        </select>
      </label>
      <CallForm key={contract.id} abi={contract.abi} target={{ contractId: contract.id }} />
    </section>
  );
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The pasted ABI read: the functions it has, or what is wrong with it. */
export function readAbi(text: string): { abi: unknown[]; error: null } | { abi: null; error: string } {
  if (!text.trim()) return { abi: null, error: 'Paste the contract\'s ABI: its JSON array (or human-readable fragments as a JSON array of strings).' };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { abi: null, error: `The ABI is not JSON: ${(err as Error).message}` };
  }
  if (!Array.isArray(v)) return { abi: null, error: 'The ABI must be a JSON array of functions and events (a compiler\'s output: its "abi" field).' };
  if (!abiFunctions(v).length) return { abi: null, error: 'The ABI has no functions to call.' };
  return { abi: v, error: null };
}

/** "Use a deployed contract": an address of the network and a pasted ABI, then the same call form. */
export function ContractAt({ networkId }: { networkId: number }) {
  const [open, setOpen] = useState(false);
  const [address, setAddress] = useState('');
  const [abiText, setAbiText] = useState('');
  const [used, setUsed] = useState<{ address: string; abi: unknown[] } | null>(null);
  const [touched, setTouched] = useState(false);
  const read = readAbi(abiText);
  const addressError = ADDRESS.test(address.trim()) ? null : 'An address: 0x and 40 hex digits.';
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Use a deployed contract
      </button>
    );
  }
  return (
    <section className="card" aria-labelledby="contract-at-title">
      <h3 id="contract-at-title">Use a deployed contract</h3>
      <p className="muted">Any contract on this network, deployed through the service or not: its address and ABI. Nothing is recorded; each call sends them along.</p>
      <form
        className="form-grid"
        aria-label="Contract address and ABI"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setTouched(true);
          if (!addressError && read.abi) setUsed({ address: address.trim(), abi: read.abi });
        }}
      >
        <label>
          <span id="contract-at-address-label">Address</span>
          <input className="code" aria-labelledby="contract-at-address-label" value={address} onChange={(e) => setAddress(e.target.value)} placeholder="0x…" aria-invalid={touched && addressError ? true : undefined} aria-describedby="contract-at-address-help" />
          <small id="contract-at-address-help">{touched && addressError ? addressError : 'The contract\'s address on this network.'}</small>
        </label>
        <label>
          <span id="contract-at-abi-label">ABI (JSON)</span>
          <textarea className="code" rows={6} aria-labelledby="contract-at-abi-label" value={abiText} onChange={(e) => setAbiText(e.target.value)} aria-invalid={touched && read.error ? true : undefined} aria-describedby="contract-at-abi-help" />
          <small id="contract-at-abi-help" data-testid="abi-error">{touched && read.error ? read.error : read.abi ? `${abiFunctions(read.abi).length} functions.` : 'A JSON array, e.g. a compiler\'s "abi" output.'}</small>
        </label>
        <div className="actions">
          <button type="submit" className="primary">
            Use this contract
          </button>
          <button
            type="button"
            onClick={() => {
              setOpen(false);
              setUsed(null);
            }}
          >
            Close
          </button>
        </div>
      </form>
      {used ? <CallForm key={`${used.address}:${JSON.stringify(used.abi)}`} abi={used.abi} target={{ networkId, address: used.address, abi: used.abi }} /> : null}
    </section>
  );
}

function CallForm({ abi, target }: { abi: unknown; target: Target }) {
  const fns = useMemo(() => abiFunctions(abi), [abi]);
  const [signature, setSignature] = useState(fns[0].signature);
  const fn = fns.find((f) => f.signature === signature) ?? fns[0];
  return (
    <>
      <label>
        Function
        <select value={fn.signature} onChange={(e) => setSignature(e.target.value)}>
          {fns.map((f) => (
            <option key={f.signature} value={f.signature}>
              {f.signature} {f.read ? '(read)' : '(transaction)'}
            </option>
          ))}
        </select>
      </label>
      <FunctionForm key={fn.signature} target={target} fn={fn} />
    </>
  );
}

function FunctionForm({ target, fn }: { target: Target; fn: AbiFunction }) {
  const [values, setValues] = useState<string[]>(() => fn.inputs.map(() => ''));
  const m = useMutation({
    mutationFn: async (): Promise<{ kind: 'query'; a: QueryAnswer } | { kind: 'invoke'; a: InvokeAnswer }> => {
      const args = fn.inputs.map((p, i) => argumentValue(p, values[i]));
      const body = { function: fn.signature, args };
      if (!('contractId' in target)) {
        const at = { ...body, ...target };
        if (fn.read) return { kind: 'query', a: await unwrap(api.POST('/api/v1/sc/evm/query', { body: at })) };
        return { kind: 'invoke', a: await unwrap(api.POST('/api/v1/sc/evm/invoke', { body: at })) };
      }
      const params = { path: { contractId: target.contractId } };
      if (fn.read) return { kind: 'query', a: await unwrap(api.POST('/api/v1/sc/evm/contracts/{contractId}/query', { params, body })) };
      return { kind: 'invoke', a: await unwrap(api.POST('/api/v1/sc/evm/contracts/{contractId}/invoke', { params, body })) };
    },
  });
  return (
    <form
      className="form-grid call-form"
      aria-label={`Call ${fn.signature}`}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      {fn.inputs.map((p, i) => (
        <label key={i}>
          {p.name || `argument ${i + 1}`} <span className="muted">({p.type})</span>
          <input
            {...invalid(m.error, `args.${i}`, `args[${i}]`)}
            className="code"
            value={values[i]}
            placeholder={p.type.endsWith(']') || p.type.startsWith('(') ? 'JSON, e.g. [1, 2]' : p.type === 'bool' ? 'true or false' : ''}
            onChange={(e) => setValues(values.map((v, j) => (j === i ? e.target.value : v)))}
          />
          <FieldError error={m.error} field={`args.${i}`} also={[`args[${i}]`]} />
        </label>
      ))}
      <FieldError error={m.error} field="args" also={['function']} />
      <div>
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? (fn.read ? 'Querying…' : 'Sending…') : fn.read ? `Query ${fn.name}` : `Send ${fn.name} transaction`}
        </button>
      </div>
      <ActionError error={m.error} />
      {m.data?.kind === 'query' ? (
        <div className="verdict valid" role="status">
          <p>
            {m.data.a.function} answered{' '}
            {m.data.a.result.length === 0 ? 'nothing' : null}
          </p>
          {m.data.a.result.length ? (
            <dl className="facts" data-testid="call-result">
              {m.data.a.result.map((v, i) => (
                <div className="contents" key={i}>
                  <dt>{fn.outputs[i]?.name || fn.outputs[i]?.type || `value ${i + 1}`}</dt>
                  <dd>
                    <code>{show(v)}</code>
                  </dd>
                </div>
              ))}
            </dl>
          ) : null}
        </div>
      ) : null}
      {m.data?.kind === 'invoke' ? (
        <div className="verdict valid" role="status">
          <p>
            Mined in block <span data-testid="call-block">{m.data.a.block_number}</span> (gas {m.data.a.gas_used}), transaction <code className="hash">{m.data.a.transaction_hash}</code>, signed by <code>{m.data.a.from}</code>.
          </p>
          {m.data.a.events.length ? (
            <ul data-testid="call-events">
              {m.data.a.events.map((e, i) => (
                <li key={i}>
                  {e.name ? (
                    <>
                      {e.name}(
                      {Object.entries(e.args ?? {})
                        .map(([k, v]) => `${k}: ${show(v)}`)
                        .join(', ')}
                      )
                    </>
                  ) : (
                    <>an event the ABI does not describe (topics {e.topics.join(', ')})</>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No events.</p>
          )}
        </div>
      ) : null}
    </form>
  );
}
