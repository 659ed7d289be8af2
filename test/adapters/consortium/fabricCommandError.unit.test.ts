// The line a failed `peer node unjoin|rollback` is reported by (the 409 of a peer leave or a
// migration's rollback step): Fabric's error, not the usage text its command line library prints after it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fabricCommandError } from '../../../adapters/consortium/consortiumNodeRuntime.ts';

test('the error line before the usage text', () => {
  const out = [
    '2026-11-30 11:02:01.123 UTC 0001 WARN [ledgermgmt] something',
    'Error: unjoin channel [nosuch]: cannot update ledger status, ledger [nosuch] does not exist',
    'Usage:',
    '  peer node unjoin [flags]',
    '',
    'Flags:',
    '  -c, --channelID string   Channel to unjoin.',
    '  -h, --help               help for unjoin',
  ].join('\n');
  assert.is(fabricCommandError(out), 'Error: unjoin channel [nosuch]: cannot update ledger status, ledger [nosuch] does not exist');
});

test('without usage text, the last line; blank lines passed over; nothing said', () => {
  assert.is(fabricCommandError('first\nError: the ledger is busy\n\n  \n'), 'Error: the ledger is busy');
  assert.is(fabricCommandError('   \n'), 'no output');
  // Usage as the first line has no line before it: the last line is reported.
  assert.is(fabricCommandError('Usage:\n  peer node rollback [flags]'), 'peer node rollback [flags]');
});

test.run();
