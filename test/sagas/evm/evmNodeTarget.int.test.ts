// The lifecycle saga's view of a node's network peers, from the event store: the network's other
// nodes as they are now (ports changed, deleted ones gone), nodes added later included.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgresEventStore.ts';
import { handleCommand } from '../../../domain/shared/commandHandler.ts';
import type { EventStore } from '../../../domain/shared/eventStore.ts';
import { nodeAggregate, nodeStream, type NodeCommand } from '../../../domain/nodes/node.ts';
import { type EvmNodeRole } from '../../../domain/evm/evmNode.ts';
import { loadNetworkPeers } from '../../../sagas/evm/evmNodeTarget.ts';

let db: FreshDatabase;
let store: EventStore;
const at = '2026-01-01T00:00:00.000Z';

const run = (command: NodeCommand) => handleCommand(store, nodeStream(command.nodeId), nodeAggregate, command, { metadata: { timestamp: at }, newId: randomUUID });
const create = (nodeId: number, networkId: number, role: EvmNodeRole, p2pPort: number) =>
  run({
    type: 'CreateNode', nodeId, name: `n${nodeId}`, platform: 'EVM', nodeType: 'EVM_FULLNODE', role, networkId, client: 'besu', engine: 'process',
    config: { p2pPort, rpcHttpPort: null, rpcWsPort: null, metricsPort: null, isBootnode: role === 'bootnode' }, validatorAddress: null, resources: null, at,
  });

test.before(async () => {
  db = await freshDatabase();
  await migrate(db.pool);
  store = postgresEventStore(db.pool, { url: db.url });
});

test.after(async () => {
  await store?.close();
  await db?.close();
});

test('a node\'s peers are the other nodes of its network as they are now, including nodes added later', async () => {
  await create(101, 7, 'validator', 30301);
  await create(102, 7, 'validator', 30302);
  await create(103, 8, 'validator', 30303);
  await create(104, 7, 'fullnode', 30304);
  assert.equal((await loadNetworkPeers(store, 7, 101)).map((n) => n.nodeId), [102, 104]);

  await run({ type: 'UpdateNodeConfig', nodeId: 102, config: { p2pPort: 30392 }, at });
  await run({ type: 'DeleteNode', nodeId: 104, at });
  await create(105, 7, 'bootnode', 30305);
  const peers = await loadNetworkPeers(store, 7, 101);
  assert.equal(peers.map((n) => n.nodeId), [102, 105]);
  assert.is(peers[0].config.p2pPort, 30392);
  assert.equal((await loadNetworkPeers(store, 8, 103)).map((n) => n.nodeId), []);
});

test.run();
