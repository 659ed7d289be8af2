// Create an EVM network from its genesis: chain id, consensus, block period, gas limit and the
// number of validator keys the service generates. The API validates; its field errors show here.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useNetworkMaker } from './networkMaker';
import { api, unwrap } from '../../api/client';
import { ActionError } from '../../components/states';

const CONSENSUS = [
  { value: 'QBFT', label: 'QBFT (Byzantine fault tolerant)' },
  { value: 'IBFT_2', label: 'IBFT 2.0' },
  { value: 'CLIQUE', label: 'Clique (proof of authority)' },
  { value: 'POW', label: 'Proof of work' },
];

export default function EvmNetworkCreate() {
  const [name, setName] = useState('');
  const [chainId, setChainId] = useState('1337');
  const [consensus, setConsensus] = useState('QBFT');
  const [blockTime, setBlockTime] = useState('2');
  const [gasLimit, setGasLimit] = useState('');
  const [validators, setValidators] = useState('1');
  const [client, setClient] = useState<'auto' | 'anvil' | 'besu'>('auto');
  const [startNow, setStartNow] = useState(true);
  const m = useNetworkMaker('evm', async () => {
    const genesis: Record<string, unknown> = { chain_id: Number(chainId), consensus, block_time: Number(blockTime) };
    if (gasLimit.trim()) genesis.gas_limit = gasLimit.trim();
    const network = await unwrap(api.POST('/api/v1/networks/evm', { body: { name, genesis, client, validatorCount: Number(validators) } }));
    if (startNow) await unwrap(api.POST('/api/v1/networks/{networkId}/start', { params: { path: { networkId: network.id } } }));
    return network;
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    m.mutate();
  };
  return (
    <section>
      <p className="crumbs">
        <Link to="/networks">Networks</Link> /
      </p>
      <h1>Create an EVM network</h1>
      <form className="card form-grid" onSubmit={submit}>
        <label>
          Name
          <input required pattern="[A-Za-z0-9-]+" maxLength={64} value={name} onChange={(e) => setName(e.target.value)} aria-describedby="name-help" />
          <small id="name-help">Letters, digits and hyphens; unique.</small>
        </label>
        <label>
          Chain id
          <input required type="number" min={1} value={chainId} onChange={(e) => setChainId(e.target.value)} />
        </label>
        <label>
          Consensus
          <select value={consensus} onChange={(e) => setConsensus(e.target.value)}>
            {CONSENSUS.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Block period (seconds)
          <input required type="number" min={1} max={60} value={blockTime} onChange={(e) => setBlockTime(e.target.value)} />
        </label>
        <label>
          Gas limit (optional)
          <input inputMode="numeric" value={gasLimit} onChange={(e) => setGasLimit(e.target.value)} placeholder="client default" />
        </label>
        <label>
          Validators
          <input required type="number" min={1} max={32} value={validators} onChange={(e) => setValidators(e.target.value)} aria-describedby="validators-help" />
          <small id="validators-help">Validator keys the service generates and holds. One validator runs on anvil; more need besu.</small>
        </label>
        <label>
          Client
          <select value={client} onChange={(e) => setClient(e.target.value as typeof client)}>
            <option value="auto">Automatic (besu where available, else anvil)</option>
            <option value="anvil">anvil</option>
            <option value="besu">besu</option>
          </select>
        </label>
        <label className="inline">
          <input type="checkbox" checked={startNow} onChange={(e) => setStartNow(e.target.checked)} /> Start the network after creating it
        </label>
        <ActionError error={m.error} />
        <div>
          <button type="submit" className="primary" disabled={m.isPending}>
            {m.isPending ? (startNow ? 'Creating and starting…' : 'Creating…') : 'Create network'}
          </button>
        </div>
      </form>
    </section>
  );
}
