// The SmartBFT and batching settings of a ledgerX network: defaults, Go durations, and the
// rules arma applies (SmartBFT's Configuration.Validate, the batch timeout rules), each broken
// rule a field of the 400.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { goDurationMs, LEDGERX_BATCHING_DEFAULTS, LEDGERX_SMARTBFT_DEFAULTS, resolveLedgerXConsensus } from '../../../domain/ledgerx/ledgerxConsensus.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const fields = (input: Parameters<typeof resolveLedgerXConsensus>[0]) => {
  try {
    resolveLedgerXConsensus(input);
  } catch (err) {
    assert.instance(err, ValidationError);
    return (err as ValidationError).details!.map((d) => d.field).sort();
  }
  return [];
};

test('Go durations as time.ParseDuration reads them', () => {
  assert.is(goDurationMs('500ms'), 500);
  assert.is(goDurationMs('1m30s'), 90_000);
  assert.is(goDurationMs('1.5h'), 5_400_000);
  assert.is(goDurationMs('0'), 0);
  assert.is(goDurationMs('-2s'), -2000);
  assert.is(goDurationMs('2562047h'), 2562047 * 3_600_000);
  for (const bad of ['', '10', 's', '1 s', '1d', 'soon', '1m30', '2562048h', '99999999999999999999s']) assert.is(goDurationMs(bad), null, bad);
});

test('nothing given: fabric-x-orderer\'s defaults; given values replace them one by one', () => {
  assert.equal(resolveLedgerXConsensus(), { smartBft: LEDGERX_SMARTBFT_DEFAULTS, batching: LEDGERX_BATCHING_DEFAULTS });
  const s = resolveLedgerXConsensus({ smartBft: { requestBatchMaxCount: 7, requestPoolSubmitTimeout: undefined }, batching: { maxMessageCount: 3 } });
  assert.is(s.smartBft.requestBatchMaxCount, 7);
  assert.is(s.smartBft.requestPoolSubmitTimeout, '5s');
  assert.is(s.batching.maxMessageCount, 3);
  assert.is(s.batching.batchCreationTimeout, '500ms');
});

test('what arma refuses is named field by field', () => {
  assert.equal(fields({ smartBft: { requestBatchMaxInterval: '0s', collectTimeout: 'soon', leaderHeartbeatCount: 0 } }), ['smartBft.collectTimeout', 'smartBft.leaderHeartbeatCount', 'smartBft.requestBatchMaxInterval']);
  assert.equal(fields({ smartBft: { requestForwardTimeout: '1m', requestComplainTimeout: '20s' } }), ['smartBft.requestForwardTimeout']);
  assert.equal(fields({ smartBft: { requestComplainTimeout: '5m' } }), ['smartBft.requestComplainTimeout']);
  assert.equal(fields({ smartBft: { viewChangeResendInterval: '1m' } }), ['smartBft.viewChangeResendInterval']);
  assert.equal(fields({ smartBft: { requestMaxBytes: 20_000_000 } }), ['smartBft.requestMaxBytes']);
  assert.equal(fields({ smartBft: { requestBatchMaxCount: 100, requestBatchMaxBytes: 50 } }), ['smartBft.requestBatchMaxCount', 'smartBft.requestMaxBytes']);
  assert.equal(fields({ smartBft: { leaderRotation: true } }), ['smartBft.decisionsPerLeader']);
  assert.equal(fields({ smartBft: { decisionsPerLeader: 5 } }), ['smartBft.decisionsPerLeader']);
  assert.equal(fields({ smartBft: { leaderRotation: true, decisionsPerLeader: 5 } }), []);
  assert.equal(fields({ batching: { batchCreationTimeout: '-1s', autoRemoveTimeout: '10', maxMessageCount: 0, absoluteMaxBytes: 2 ** 32 } }), ['batching.absoluteMaxBytes', 'batching.autoRemoveTimeout', 'batching.batchCreationTimeout', 'batching.maxMessageCount']);
});

test.run();
