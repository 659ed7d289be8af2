import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { renderReadme } from '../bin/readme.ts';

const readme = readFileSync('README.md', 'utf8');

test('the generated README sections (configuration and permission tables) match the code: run `npm run readme` after changing them', () => {
  assert.ok(readme.includes('<!-- config-table:start -->') && readme.includes('<!-- permission-table:start -->'));
  assert.fixture(renderReadme(readme), readme);
});

test('the README names every command of the command line', () => {
  for (const c of ['lnm serve', 'lnm migrate', 'lnm projections rebuild', 'lnm restore', 'lnm programs', 'npm test', 'npm run bench', 'npm start', 'npm run readme']) assert.ok(readme.includes(c), c);
});

test.run();
