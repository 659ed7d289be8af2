import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { configEntries } from '../bin/config.ts';

const readme = readFileSync('README.md', 'utf8');

test('the README configuration table lists every configuration entry with its flag and default', () => {
  const missing = configEntries.filter((e) => !readme.includes(`| \`${e.env}\` | \`${e.flag}\` | ${e.default} |`));
  assert.equal(missing.map((e) => e.env), []);
});

test('the README names every command of the command line', () => {
  for (const c of ['lnm serve', 'lnm migrate', 'lnm projections rebuild', 'npm test', 'npm run bench', 'npm start']) assert.ok(readme.includes(c), c);
});

test.run();
