import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase } from '../helpers/postgres.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgresEventStore.ts';
import { createBlockFeed } from '../../sagas/blockFeed.ts';
import { blockFeedStream, type BlockSource } from '../../domain/webhooks/blockFeed.ts';

test('blocks and transactions are recorded only while a webhook subscribes, from the head on, each once', async () => {
  const db = await freshDatabase();
  await migrate(db.pool);
  const store = postgresEventStore(db.pool, { url: db.url });
  let head = 10;
  const asked: string[] = [];
  const source: BlockSource = {
    async head(url) {
      asked.push(url);
      return head;
    },
    async block(_url, n) {
      return { number: n, hash: `0x${n.toString(16).padStart(64, '0')}`, transactions: n % 2 === 0 ? [`0xtx${n}a`, `0xtx${n}b`] : [] };
    },
  };
  await db.pool.query(`INSERT INTO nodes (id, name, platform, node_type, role, network_id, client, engine, config, status, created_at, updated_at)
    VALUES (1, 'v1', 'EVM', 'EVM_VALIDATOR', 'validator', 7, 'anvil', 'process', '{"rpcHttpPort": 18545}', 'running', now(), now())`);
  const feed = createBlockFeed({ pool: db.pool, store, source });
  const types = async () => (await store.readStream(blockFeedStream(7))).map((e) => `${e.type}:${e.data.blockNumber}`);

  await feed.poll();
  assert.equal(asked, [], 'no subscriber: the node is not even asked');
  await db.pool.query(`INSERT INTO webhooks (id, name, url, events, timeout_seconds, max_retries, created_at, updated_at) VALUES (1, 'b', 'http://x', '{blockchain.block.received}', 10, 3, now(), now())`);
  await feed.poll();
  assert.equal(await types(), ['BlockObserved:10'], 'a new subscriber starts at the head');
  assert.equal(asked, ['http://127.0.0.1:18545']);
  head = 12;
  await feed.poll();
  await feed.poll();
  assert.equal(await types(), ['BlockObserved:10', 'BlockObserved:11', 'BlockObserved:12']);
  await db.pool.query(`UPDATE webhooks SET events = '{blockchain.block.received,blockchain.transaction.committed}'`);
  head = 14;
  await feed.poll();
  assert.equal((await types()).slice(3), ['BlockObserved:13', 'BlockObserved:14', 'TransactionCommitted:14', 'TransactionCommitted:14']);
  // A restarted feed (no memory) sees the same head again: nothing recorded twice.
  await createBlockFeed({ pool: db.pool, store, source }).poll();
  assert.is((await types()).length, 7);
  await db.pool.query('UPDATE webhooks SET enabled = false');
  head = 20;
  await feed.poll();
  assert.is((await types()).length, 7, 'no subscriber, nothing recorded');
  await store.close();
  await db.close();
});

test.run();
