import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demuxLogBuffer, lineSink, splitLines } from '../../../adapters/engines/dockerLogs.ts';

const frame = (stream: 1 | 2, text: string) => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

test('a multiplexed log buffer gives stdout and stderr lines in order, without frame headers', () => {
  const buf = Buffer.concat([frame(1, 'Listening on 127.0.0.1:8545\n'), frame(2, 'warning: low disk\n'), frame(1, 'eth_chainId\r\n')]);
  assert.equal(splitLines(demuxLogBuffer(buf)), ['Listening on 127.0.0.1:8545', 'warning: low disk', 'eth_chainId']);
});

test('output of a TTY container (not multiplexed) is passed through', () => {
  assert.equal(splitLines(demuxLogBuffer(Buffer.from('plain line one\nplain line two\n'))), ['plain line one', 'plain line two']);
});

test('lineSink joins lines split across chunks and flushes the last partial line at the end', async () => {
  const seen: string[] = [];
  const sink = lineSink((l) => seen.push(l));
  sink.write(Buffer.from('first li'));
  sink.write(Buffer.from('ne\nsecond\nthi'));
  await new Promise<void>((r) => sink.end(Buffer.from('rd'), () => r()));
  assert.equal(seen, ['first line', 'second', 'third']);
});

test.run();
