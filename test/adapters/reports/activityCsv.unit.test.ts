import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCsv } from '../../helpers/documents.ts';
import {
  ACTIVITY_CSV_COLUMNS,
  activityCsv,
  activityCsvChunks,
  activityCsvFileName,
  csvField,
  CSV_YIELD_EVERY,
  type ActivityEntry,
} from '../../../adapters/reports/activityCsv.ts';


const entry = (over: Partial<ActivityEntry> = {}): ActivityEntry => ({
  id: 1,
  timestamp: '2026-03-01T10:00:00.000Z',
  username: 'alice',
  ip_address: '10.0.0.1',
  action: 'NETWORK_CREATE',
  resource_type: 'network',
  resource_id: 7,
  resource_name: 'net-a',
  status: 'success',
  error_message: null,
  method: 'POST',
  endpoint: '/api/v1/networks/evm',
  response_code: 201,
  duration_ms: 42,
  request_id: 'req-1',
  ...over,
});

const parse = (csv: string) => {
  assert.ok(csv.startsWith('\uFEFF'), 'UTF-8 byte-order mark for spreadsheets');
  return parseCsv(csv.slice(1));
};

test('the file has a header row of the audit field names and one row per entry, every line ending CRLF', async () => {
  const entries = [entry(), entry({ id: 2, action: 'NODE_UPDATE', status: 'denied', response_code: 403 }), entry({ id: 3 })];
  const csv = await activityCsv(entries);
  const rows = parse(csv);
  assert.equal(rows[0], [...ACTIVITY_CSV_COLUMNS]);
  assert.is(rows.length, 4);
  assert.equal(rows[2], ['2', '2026-03-01T10:00:00.000Z', 'alice', '10.0.0.1', 'NODE_UPDATE', 'network', '7', 'net-a', 'denied', '', 'POST', '/api/v1/networks/evm', '403', '42', 'req-1']);
  assert.is(csv.replace(/\r\n/g, '').includes('\n'), false, 'no bare LF line ends');
  assert.ok(rows.every((r) => r.length === ACTIVITY_CSV_COLUMNS.length));
});

test('commas, quotes and line breaks inside values survive a round trip', async () => {
  const nasty = 'Cannot join peer "p1", channel x:\r\nsecond line\nthird';
  const rows = parse(await activityCsv([entry({ error_message: nasty, resource_name: 'a,b', username: 'o"brien' })]));
  assert.is(rows.length, 2);
  const r = Object.fromEntries(ACTIVITY_CSV_COLUMNS.map((c, i) => [c, rows[1][i]]));
  assert.is(r.error_message, nasty);
  assert.is(r.resource_name, 'a,b');
  assert.is(r.username, 'o"brien');
  assert.is(csvField('say "hi"'), '"say ""hi"""');
});

test('text starting with = + - @ tab or CR is kept as text with a leading apostrophe', async () => {
  const rows = parse(
    await activityCsv([
      entry({ username: '=HYPERLINK("http://evil.example","x")', resource_name: '+cmd|\'/c calc\'!A0', error_message: '-1+1', request_id: '@SUM(A1)' }),
      entry({ resource_name: '\tleading tab', error_message: '\rcarriage', endpoint: 'a=b is fine inside' }),
    ]),
  );
  const [, first, second] = rows.map((r) => Object.fromEntries(ACTIVITY_CSV_COLUMNS.map((c, i) => [c, r[i]])));
  assert.is(first.username, '\'=HYPERLINK("http://evil.example","x")');
  assert.is(first.resource_name, '\'+cmd|\'/c calc\'!A0');
  assert.is(first.error_message, '\'-1+1');
  assert.is(first.request_id, '\'@SUM(A1)');
  assert.is(second.resource_name, '\'\tleading tab');
  assert.is(second.error_message, '\'\rcarriage');
  assert.is(second.endpoint, 'a=b is fine inside');
});

test('numbers are written as numbers (a negative number is not mistaken for a formula), nulls as empty cells', async () => {
  assert.is(csvField(-5), '-5');
  assert.is(csvField(0), '0');
  assert.is(csvField(Number.NaN), '');
  assert.is(csvField(null), '');
  assert.is(csvField(new Date('2026-03-01T10:00:00Z')), '2026-03-01T10:00:00.000Z');
  const rows = parse(await activityCsv([entry({ username: null, ip_address: null, response_code: null, duration_ms: null, timestamp: new Date('2026-03-02T00:00:00Z') })]));
  assert.equal([rows[1][1], rows[1][2], rows[1][3], rows[1][12], rows[1][13]], ['2026-03-02T00:00:00.000Z', '', '', '', '']);
});

test('an empty range gives the header row only; the byte-order mark can be left out', async () => {
  assert.equal(parse(await activityCsv([])), [[...ACTIVITY_CSV_COLUMNS]]);
  const plain = await activityCsv([entry()], { bom: false });
  assert.ok(plain.startsWith('id,timestamp,'));
  assert.is(parseCsv(plain).length, 2);
});

test('streaming chunks add up to the same file, one line per chunk', async () => {
  const entries = Array.from({ length: 50 }, (_, i) => entry({ id: i + 1, error_message: i % 7 === 0 ? 'x,\ny' : null }));
  const chunks = [...activityCsvChunks(entries)];
  assert.is(chunks.length, 51);
  assert.is(chunks.join(''), await activityCsv(entries));
  assert.is(parse(chunks.join('')).length, 51);
});

test('a large report leaves the event loop turning while it is made (issue 36, beside item 9): counted, not timed', async () => {
  const rows = 20_000;
  const entries = Array.from({ length: rows }, (_, i) => entry({ id: i + 1, resource_name: `node-${i}` }));
  let running = true;
  let turns = 0;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const csv = await activityCsv(entries);
  running = false;
  assert.ok(turns >= rows / CSV_YIELD_EVERY / 2, `${turns} event-loop turns while ${rows} rows were written`);
  const parsed = parse(csv);
  assert.is(parsed.length, rows + 1);
  assert.is(parsed[rows][parsed[0].indexOf('resource_name')], `node-${rows - 1}`);
});

test('the file name carries the period and nothing from user input', () => {
  assert.is(activityCsvFileName('2026-01-01T00:00:00Z', new Date('2026-01-31T23:59:59Z')), 'activity-2026-01-01_2026-01-31.csv');
  assert.throws(() => activityCsvFileName('"; rm -rf /', '2026-01-31'));
});

test.run();
