// Deploy an EVM contract on the network: creation bytecode, optionally an ABI and constructor
// arguments (JSON), signed by the network's first validator key unless the API is told otherwise.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ActionError, FieldError, invalid } from '../../components/states';

function parseJsonArray(text: string, field: string): unknown[] | undefined {
  if (!text.trim()) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error(`${field} is not valid JSON.`);
  }
  if (!Array.isArray(v)) throw new Error(`${field} must be a JSON array.`);
  return v;
}

export function DeployContract({ networkId }: { networkId: number }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [bytecode, setBytecode] = useState('');
  const [abi, setAbi] = useState('');
  const [args, setArgs] = useState('');
  const m = useMutation({
    mutationFn: async () => {
      const body = { networkId, bytecode: bytecode.trim(), ...(name ? { name } : {}), abi: parseJsonArray(abi, 'ABI'), args: parseJsonArray(args, 'Constructor arguments') };
      return (await unwrap(api.POST('/api/v1/sc/evm/deploy', { body }))) as unknown as { address?: string; transactionHash?: string; transaction_hash?: string; blockNumber?: number; block_number?: number };
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ['contracts', networkId] }),
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="deploy-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="deploy-title">Deploy a contract</h3>
      <label>
        Contract name (optional)
        <input {...invalid(m.error, 'name')} maxLength={128} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Creation bytecode (hex)
        <textarea {...invalid(m.error, 'bytecode')} className="code" rows={3} required spellCheck={false} value={bytecode} onChange={(e) => setBytecode(e.target.value)} />
        <FieldError error={m.error} field="bytecode" />
      </label>
      <label>
        ABI (JSON array, optional)
        <textarea {...invalid(m.error, 'abi')} className="code" rows={3} spellCheck={false} value={abi} onChange={(e) => setAbi(e.target.value)} placeholder='["constructor(uint256 v)", "function get() view returns (uint256)"]' />
        <FieldError error={m.error} field="abi" />
      </label>
      <label>
        Constructor arguments (JSON array, optional)
        <input {...invalid(m.error, 'args', 'constructorArgs')} className="code" value={args} onChange={(e) => setArgs(e.target.value)} placeholder="[42]" />
        <FieldError error={m.error} field="args" also={['constructorArgs']} />
      </label>
      <ActionError error={m.error} />
      {m.data ? (
        <p className="verdict valid" role="status">
          Deployed at <code data-testid="contract-address">{m.data.address}</code>
          {m.data.transactionHash || m.data.transaction_hash ? (
            <>
              {' '}
              by transaction <code className="hash">{m.data.transactionHash ?? m.data.transaction_hash}</code>
            </>
          ) : null}
        </p>
      ) : null}
      <div>
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Deploying…' : 'Deploy'}
        </button>
      </div>
    </form>
  );
}
