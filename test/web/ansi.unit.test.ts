import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAnsi } from '../../web/src/components/ansi.ts';

test('SGR colours split a line into styled runs; reset ends them', () => {
  const s = parseAnsi('\x1b[32mINFO\x1b[0m [\x1b[1;91mpeer\x1b[0m] started');
  assert.equal(s, [
    { text: 'INFO', fg: 2, bg: null, bold: false },
    { text: ' [', fg: null, bg: null, bold: false },
    { text: 'peer', fg: 9, bg: null, bold: true },
    { text: '] started', fg: null, bg: null, bold: false },
  ]);
});

test('256-colour codes below 16 map to the palette; true colour and other escapes are dropped, text kept', () => {
  assert.equal(parseAnsi('\x1b[38;5;3mwarn\x1b[39m'), [{ text: 'warn', fg: 3, bg: null, bold: false }]);
  assert.equal(parseAnsi('\x1b[38;2;1;2;3mx\x1b[2K\x1b[?25ly'), [{ text: 'xy', fg: null, bg: null, bold: false }]);
  assert.equal(parseAnsi('plain'), [{ text: 'plain', fg: null, bg: null, bold: false }]);
  assert.equal(parseAnsi(''), []);
});

test.run();
