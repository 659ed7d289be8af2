// The block height a Fabric-X role exports, parsed from /metrics text as the real programs print
// it (lines taken from a running committer sidecar and arma assembler, 13 blocks each).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { blockHeightOf, heightMetricOf } from '../../../adapters/ledgerx/fabricXLedgerMetrics.ts';
import { nodeSeries } from '../../../domain/metrics/metricsQuery.ts';

const t = suite('Fabric-X ledger metrics');

const sidecar = [
  '# HELP sidecar_ledger_block_height The height of the ledger',
  '# TYPE sidecar_ledger_block_height gauge',
  'sidecar_delivery_block_number{stream_type="data"} 12',
  'sidecar_ledger_append_block_seconds_count 10',
  'sidecar_ledger_block_height 13',
  'sidecar_relay_transaction_out_total 1000',
].join('\n');
const assembler = [
  'arma_version{version="latest"} 1',
  'assembler_ledger_blocks_count_total{party_id="1"} 13',
  'assembler_ledger_blocks_size_bytes_total{party_id="1"} 1.020871e+06',
  'assembler_ledger_transaction_count_total{party_id="1"} 1102',
].join('\n');

t('the sidecar and the assembler: their ledger height', () => {
  assert.is(blockHeightOf(sidecar, 'sidecar'), 13);
  assert.is(blockHeightOf(assembler, 'assembler'), 13);
});

t('a metric with a longer name that starts the same is not the height', () => {
  assert.is(blockHeightOf('sidecar_ledger_block_height_seconds 99\nsidecar_ledger_block_height 4', 'sidecar'), 4);
  assert.is(blockHeightOf('assembler_ledger_blocks_count_total_x 99', 'assembler'), null);
});

t('roles that keep no ledger have none, and a role whose text lacks it has none', () => {
  for (const role of ['router', 'batcher', 'consenter', 'coordinator', 'vc', 'verifier', 'query'] as const) {
    assert.is(heightMetricOf(role), null);
    assert.is(blockHeightOf(`${sidecar}\n${assembler}`, role), null);
  }
  assert.is(blockHeightOf(assembler, 'sidecar'), null);
  assert.is(blockHeightOf('', 'assembler'), null);
  assert.is(blockHeightOf('sidecar_ledger_block_height NaN', 'sidecar'), null);
});

t('the summary query of GET /metrics/node/{id} reads both metrics, scoped to the node', () => {
  const q = nodeSeries(7).block_height;
  assert.match(q, 'sidecar_ledger_block_height{node_id="7"}');
  assert.match(q, 'assembler_ledger_blocks_count_total{node_id="7"}');
});

t.run();
