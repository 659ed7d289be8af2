// Create an EVM network from its genesis: chain id, consensus, block period, gas limit, its
// validator keys (a number the service generates, or secp256k1 private keys imported as PEM,
// write-only: sent once, never shown again) and the key provider that holds them, the
// genesis allocations (accounts and their balances), the gas model (minimum gas price, base fee)
// with a balance for each validator key, and a description. The API validates; its field errors
// show here (a refused PEM beside its field). With node hosts registered, where its nodes run
// (placement: a host or Kubernetes cluster, or by labels; recorded on the network for its starts).
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { useNetworkMaker } from './networkMaker';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../session';
import { ActionError, FieldError, invalid } from '../../components/states';
import { PlacementFields, usePlacement } from '../../components/Placement';

interface Allocation {
  address: string;
  balance: string;
}

const CONSENSUS = [
  { value: 'QBFT', label: 'QBFT (Byzantine fault tolerant)' },
  { value: 'IBFT_2', label: 'IBFT 2.0' },
  { value: 'CLIQUE', label: 'Clique (proof of authority)' },
  { value: 'POW', label: 'Proof of work' },
];

export default function EvmNetworkCreate() {
  const [name, setName] = useState('');
  // Left empty (null for the consensus), a genesis field takes the API's default, which the
  // form shows from GET /networks/evm/defaults: the console keeps no copy of them.
  const defaults = useQuery({ queryKey: ['evm-defaults'], queryFn: () => unwrap(api.GET('/api/v1/networks/evm/defaults')) });
  const [chainId, setChainId] = useState('');
  const [consensus, setConsensus] = useState<string | null>(null);
  const [blockTime, setBlockTime] = useState('');
  const [gasLimit, setGasLimit] = useState('');
  const [validators, setValidators] = useState('');
  const [importKeys, setImportKeys] = useState(false);
  const [pems, setPems] = useState<string[]>(['']);
  const [client, setClient] = useState<'auto' | 'anvil' | 'besu' | 'geth'>('auto');
  const [startNow, setStartNow] = useState(true);
  const [description, setDescription] = useState('');
  const [allocations, setAllocations] = useState<Allocation[]>([]);
  const [minGasPrice, setMinGasPrice] = useState('');
  const [baseFee, setBaseFee] = useState('');
  const [validatorBalance, setValidatorBalance] = useState('');
  const [providerId, setProviderId] = useState('');
  const { can } = useSession();
  const where = usePlacement();
  const providers = useQuery({ queryKey: ['key-providers'], enabled: can('KEY_PROVIDER_READ'), queryFn: () => unwrap(api.GET('/api/v1/key-providers')) });
  const setAllocation = (i: number, change: Partial<Allocation>) => setAllocations((list) => list.map((a, j) => (j === i ? { ...a, ...change } : a)));
  const m = useNetworkMaker('evm', async () => {
    const genesis: Record<string, unknown> = {};
    if (chainId.trim()) genesis.chain_id = Number(chainId);
    if (consensus) genesis.consensus = consensus;
    if (blockTime.trim()) genesis.block_time = Number(blockTime);
    if (gasLimit.trim()) genesis.gas_limit = gasLimit.trim();
    // Rows left wholly empty are ignored; a half-filled row goes to the API, whose 400 names it.
    const accounts = allocations.filter((a) => a.address.trim() || a.balance.trim());
    if (accounts.length) genesis.accounts = Object.fromEntries(accounts.map((a) => [a.address.trim(), { balance: a.balance.trim() }]));
    if (minGasPrice.trim()) genesis.min_gas_price = minGasPrice.trim();
    if (baseFee.trim()) genesis.base_fee = baseFee.trim();
    const network = await unwrap(api.POST('/api/v1/networks/evm', {
      body: {
        name, genesis, client,
        // Imported keys replace generated ones; empty fields are left out.
        ...(importKeys ? { validatorKeys: pems.map((p) => p.trim()).filter(Boolean) } : validators.trim() ? { validatorCount: Number(validators) } : {}),
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(validatorBalance.trim() ? { validatorBalance: validatorBalance.trim() } : {}),
        ...(providerId ? { providerId: Number(providerId) } : {}),
        ...(where.placement ? { placement: where.placement } : {}),
      },
    }));
    if (startNow) await unwrap(api.POST('/api/v1/networks/{networkId}/start', { params: { path: { networkId: network.id } } }));
    return network;
  });
  const refusal = m.error;
  // The genesis parser names its fields bare (chain_id), the body validator and a 409 under genesis.
  const g = (f: string) => [f, `genesis.${f}`];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (where.ready) m.mutate();
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
          <input required pattern="[A-Za-z0-9-]+" maxLength={64} value={name} onChange={(e) => setName(e.target.value)} aria-describedby="name-help" {...invalid(refusal, 'name')} />
          <small id="name-help">Letters, digits and hyphens; unique.</small>
          <FieldError error={refusal} field="name" />
        </label>
        <label>
          Chain id
          <input type="number" min={1} value={chainId} onChange={(e) => setChainId(e.target.value)} placeholder={defaults.data ? String(defaults.data.chain_id) : ''} aria-describedby="chain-id-help" {...invalid(refusal, ...g('chain_id'))} />
          <FieldError error={refusal} field="chain_id" also={['genesis.chain_id']} />
          <small id="chain-id-help">
            Empty: the next id no network here uses{defaults.data ? ` (${defaults.data.chain_id})` : ''}. Each network has its own: a transaction signed for one chain id replays on any chain with the same.
          </small>
        </label>
        <label>
          Consensus
          <select value={consensus ?? defaults.data?.consensus ?? ''} onChange={(e) => setConsensus(e.target.value)} {...invalid(refusal, ...g('consensus'))}>
            {CONSENSUS.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
          <FieldError error={refusal} field="consensus" also={['genesis.consensus']} />
        </label>
        <label>
          Block period (seconds)
          <input type="number" min={1} max={60} value={blockTime} onChange={(e) => setBlockTime(e.target.value)} placeholder={defaults.data ? String(defaults.data.block_time) : ''} {...invalid(refusal, ...g('block_time'))} />
          <FieldError error={refusal} field="block_time" also={['genesis.block_time']} />
        </label>
        <label>
          Gas limit (optional)
          <input inputMode="numeric" value={gasLimit} onChange={(e) => setGasLimit(e.target.value)} placeholder="client default" {...invalid(refusal, ...g('gas_limit'))} />
          <FieldError error={refusal} field="gas_limit" also={['genesis.gas_limit']} />
        </label>
        <fieldset>
          <legend>Validator keys</legend>
          <label className="inline">
            <input type="radio" name="validator-keys" checked={!importKeys} onChange={() => setImportKeys(false)} /> Generated by the service
          </label>
          <label className="inline">
            <input type="radio" name="validator-keys" checked={importKeys} onChange={() => setImportKeys(true)} /> Imported: secp256k1 private keys (PEM)
          </label>
          {importKeys ? (
            <>
              <p className="muted">Each key is stored in the key provider below and listed under Keys; it is sent once and never shown again. One validator runs on anvil; more need besu.</p>
              {pems.map((pem, i) => {
                return (
                  <div key={i} className="actions">
                    <label>
                      Validator key {i + 1} (PEM)
                      <textarea
                        className="code"
                        rows={4}
                        maxLength={20000}
                        spellCheck={false}
                        autoComplete="off"
                        placeholder="-----BEGIN PRIVATE KEY-----"
                        value={pem}
                        onChange={(e) => setPems((list) => list.map((p, j) => (j === i ? e.target.value : p)))}
                        {...invalid(refusal, `validatorKeys[${i}]`)}
                      />
                      <FieldError error={refusal} field={`validatorKeys[${i}]`} />
                    </label>
                    {pems.length > 1 ? (
                      <button type="button" onClick={() => setPems((list) => list.filter((_, j) => j !== i))} aria-label={`Remove validator key ${i + 1}`}>
                        Remove
                      </button>
                    ) : null}
                  </div>
                );
              })}
              {pems.length < 32 ? (
                <button type="button" onClick={() => setPems((list) => [...list, ''])}>
                  Add a validator key
                </button>
              ) : null}
            </>
          ) : (
            <label>
              Validators
              <input type="number" min={1} max={32} value={validators} onChange={(e) => setValidators(e.target.value)} placeholder={defaults.data ? String(defaults.data.validator_count) : ''} aria-describedby="validators-help" {...invalid(refusal, 'validatorCount')} />
              <FieldError error={refusal} field="validatorCount" />
              <small id="validators-help">Validator keys the service generates and holds. One validator runs on anvil, as a one-node development chain (no validator set, no voting); more need besu.</small>
            </label>
          )}
        </fieldset>
        <label>
          Client
          <select value={client} onChange={(e) => setClient(e.target.value as typeof client)} {...invalid(refusal, 'client')}>
            <option value="auto">Automatic (geth for Clique where available, else besu where available, else anvil)</option>
            <option value="anvil">anvil</option>
            <option value="besu">besu</option>
            <option value="geth">geth (Clique only)</option>
          </select>
          <FieldError error={refusal} field="client" />
        </label>
        <label>
          Description (optional)
          <textarea maxLength={1000} rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        {providers.data && providers.data.length > 1 ? (
          <label>
            Key provider of the validator keys
            <select value={providerId} onChange={(e) => setProviderId(e.target.value)} {...invalid(refusal, 'providerId')}>
              <option value="">The default provider</option>
              {providers.data.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name} ({p.type})
                </option>
              ))}
            </select>
            <FieldError error={refusal} field="providerId" />
          </label>
        ) : null}
        <fieldset>
          <legend>Genesis allocations</legend>
          <p className="muted">Accounts credited in the genesis block, balance in wei (a decimal number).</p>
          {allocations.map((a, i) => (
            <div key={i} className="actions" data-testid={`allocation-${i}`}>
              <label>
                Account {i + 1} address
                <input value={a.address} onChange={(e) => setAllocation(i, { address: e.target.value })} placeholder="0x…" pattern="0x[0-9a-fA-F]{40}" />
              </label>
              <label>
                Account {i + 1} balance (wei)
                <input inputMode="numeric" pattern="[0-9]+" value={a.balance} onChange={(e) => setAllocation(i, { balance: e.target.value })} />
              </label>
              <button type="button" onClick={() => setAllocations((list) => list.filter((_, j) => j !== i))} aria-label={`Remove account ${i + 1}`}>
                Remove
              </button>
            </div>
          ))}
          <button type="button" onClick={() => setAllocations((list) => [...list, { address: '', balance: '' }])}>
            Add an account
          </button>
        </fieldset>
        <fieldset>
          <legend>Gas</legend>
          <p className="muted">Leave both prices empty for free gas (base fee 0, gas price 0 accepted). A minimum gas price above 0 makes the network priced: deploying keys then need ether (an allocation, or a balance for each validator key).</p>
          <label>
            Minimum gas price (wei, optional)
            <input inputMode="numeric" pattern="[0-9]+" value={minGasPrice} onChange={(e) => setMinGasPrice(e.target.value)} {...invalid(refusal, ...g('min_gas_price'))} />
            <FieldError error={refusal} field="min_gas_price" also={['genesis.min_gas_price']} />
          </label>
          <label>
            Base fee (wei, optional)
            <input inputMode="numeric" pattern="[0-9]+" value={baseFee} onChange={(e) => setBaseFee(e.target.value)} placeholder="1000000000 when priced" {...invalid(refusal, ...g('base_fee'))} />
            <FieldError error={refusal} field="base_fee" also={['genesis.base_fee']} />
          </label>
          <label>
            Balance for each validator key (wei, optional)
            <input inputMode="numeric" pattern="[0-9]+" value={validatorBalance} onChange={(e) => setValidatorBalance(e.target.value)} {...invalid(refusal, 'validatorBalance')} />
            <FieldError error={refusal} field="validatorBalance" />
          </label>
        </fieldset>
        <PlacementFields choice={where} error={refusal} field="placement" idPrefix="evm-network" label="Where its nodes run" />
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
