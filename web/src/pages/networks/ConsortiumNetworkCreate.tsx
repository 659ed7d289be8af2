// Create a consortium network (one channel) from existing orderers and peers: the service
// builds the channel's genesis block; the nodes then join it from the network's page. Consensus
// etcdraft (raft consenters) or smartbft (at least 4 orderers on Fabric 3.x, with its options).
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useNetworkMaker } from './networkMaker';
import { api, unwrap } from '../../api/client';
import { useAllNodes } from '../../api/queries';
import { ActionError, Empty, QueryView, FieldError, invalid } from '../../components/states';
import { SmartBftOptionsFields, smartBftBody, type SmartBftValues } from './SmartBftOptions';

export default function ConsortiumNetworkCreate() {
  const nodes = useAllNodes('CONSORTIUM');
  const [name, setName] = useState('');
  const [channel, setChannel] = useState('');
  const [orderers, setOrderers] = useState<number[]>([]);
  const [peers, setPeers] = useState<number[]>([]);
  const [batchTimeout, setBatchTimeout] = useState('2s');
  const [maxMessageCount, setMaxMessageCount] = useState('500');
  const [consensus, setConsensus] = useState<'etcdraft' | 'smartbft'>('etcdraft');
  const [bftOptions, setBftOptions] = useState<SmartBftValues>({});
  const bft = consensus === 'smartbft';
  const m = useNetworkMaker('consortium', () =>
    unwrap(
      api.POST('/api/v1/networks/consortium', {
        body: { name, channelName: channel, ordererIds: orderers, peerIds: peers, consensus, ...(bft ? { smartBftOptions: smartBftBody(bftOptions) } : { batchTimeout, maxMessageCount: Number(maxMessageCount) }) },
      }),
    ),
  );
  const toggle = (list: number[], set: (l: number[]) => void, id: number, on: boolean) => set(on ? [...list, id] : list.filter((x) => x !== id));
  return (
    <section>
      <p className="crumbs">
        <Link to="/networks">Networks</Link> /
      </p>
      <h1>Create a consortium network</h1>
      <form
        className="card form-grid"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          m.mutate();
        }}
      >
        <label>
          Name
          <input {...invalid(m.error, 'name')} required maxLength={64} pattern="[A-Za-z0-9-]+" value={name} onChange={(e) => setName(e.target.value)} />
          <FieldError error={m.error} field="name" />
        </label>
        <label>
          Channel name
          <input {...invalid(m.error, 'channelName')} required maxLength={249} pattern="[a-z][a-z0-9.\-]*" value={channel} onChange={(e) => setChannel(e.target.value)} aria-describedby="channel-help" />
          <FieldError error={m.error} field="channelName" />
          <small id="channel-help">Lower-case letters, digits, “.” and “-”, starting with a letter.</small>
        </label>
        <label>
          Consensus
          <select {...invalid(m.error, 'consensus')} value={consensus} onChange={(e) => setConsensus(e.target.value as 'etcdraft' | 'smartbft')} aria-describedby="consensus-help">
            <option value="etcdraft">etcdraft (raft, crash faults)</option>
            <option value="smartbft">smartbft (BFT, Fabric 3.x, at least 4 orderers)</option>
          </select>
          <FieldError error={m.error} field="consensus" />
          <small id="consensus-help">{bft ? 'SmartBFT: at least 4 orderers, each running Fabric 3.x (n orderers tolerate floor((n-1)/3) faulty ones).' : 'Raft: a majority of the consenters must run.'}</small>
        </label>
        <QueryView q={nodes} what="Loading consortium nodes">
          {(d) => {
            const ord = d.items.filter((n) => n.nodeType === 'CONSORTIUM_ORDERER');
            const peer = d.items.filter((n) => n.nodeType === 'CONSORTIUM_PEER');
            return ord.length === 0 ? (
              <Empty>No orderers yet: create organizations, then orderers and peers under Nodes.</Empty>
            ) : (
              <>
                <fieldset>
                  <legend>{bft ? 'Orderers (SmartBFT consenters, Fabric 3.x)' : 'Orderers (raft consenters)'}</legend>
                  {ord.map((n) => (
                    <label key={n.id} className="inline">
                      <input type="checkbox" checked={orderers.includes(n.id)} onChange={(e) => toggle(orderers, setOrderers, n.id, e.target.checked)} /> {n.name}
                      {(n as { fabric_version?: string | null }).fabric_version ? <span className="muted"> (Fabric {(n as { fabric_version?: string | null }).fabric_version})</span> : null}
                    </label>
                  ))}
                  <FieldError error={m.error} field="ordererIds" />
                </fieldset>
                <fieldset>
                  <legend>Peers (members; they join afterwards)</legend>
                  {peer.length === 0 ? <p className="muted">No peers.</p> : null}
                  {peer.map((n) => (
                    <label key={n.id} className="inline">
                      <input type="checkbox" checked={peers.includes(n.id)} onChange={(e) => toggle(peers, setPeers, n.id, e.target.checked)} /> {n.name}
                    </label>
                  ))}
                  <FieldError error={m.error} field="peerIds" />
                </fieldset>
              </>
            );
          }}
        </QueryView>
        {bft ? (
          <SmartBftOptionsFields values={bftOptions} onChange={setBftOptions} error={m.error} />
        ) : (
          <>
            <label>
              Batch timeout
              <input {...invalid(m.error, 'batchTimeout')} value={batchTimeout} onChange={(e) => setBatchTimeout(e.target.value)} />
              <FieldError error={m.error} field="batchTimeout" />
            </label>
            <label>
              Maximum messages per block
              <input {...invalid(m.error, 'maxMessageCount')} type="number" min={1} max={100000} value={maxMessageCount} onChange={(e) => setMaxMessageCount(e.target.value)} />
              <FieldError error={m.error} field="maxMessageCount" />
            </label>
          </>
        )}
        <ActionError error={m.error} />
        <div>
          <button type="submit" className="primary" disabled={m.isPending || orderers.length === 0}>
            {m.isPending ? 'Creating…' : 'Create network'}
          </button>
        </div>
      </form>
    </section>
  );
}
