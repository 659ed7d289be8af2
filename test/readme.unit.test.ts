import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { generatedFiles, renderReadme } from '../bin/readme.ts';

const readme = readFileSync('README.md', 'utf8');

test('the generated sections (configuration table in README.md, permission table in docs/authentication.md) match the code: run `npm run readme` after changing them', () => {
  assert.equal(generatedFiles, { 'README.md': ['config-table'], 'docs/authentication.md': ['permission-table'] });
  for (const [file, sections] of Object.entries(generatedFiles)) {
    const text = readFileSync(file, 'utf8');
    for (const s of sections) assert.ok(text.includes(`<!-- ${s}:start -->`) && text.includes(`<!-- ${s}:end -->`), `${file} holds ${s}`);
    assert.fixture(renderReadme(text), text);
  }
});

test('the README names every command of the command line', () => {
  for (const c of ['lnm serve', 'lnm migrate', 'lnm projections rebuild', 'lnm restore', 'lnm programs', 'npm test', 'npm run test:bare', 'npm run bench', 'npm start', 'npm run readme']) assert.ok(readme.includes(c), c);
});

test('the README is a front door: under 250 lines, a first network from scratch by API and by console, and how to run the pro edition its tour uses', () => {
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  assert.ok(lines < 250, `README.md has ${lines} lines`);
  assert.ok(readme.includes(`-d '{"name":"dev"}'`) && readme.includes('/networks/evm'), 'a first network by API');
  assert.ok(readme.includes('"Create EVM network"'), 'a first network from the console');
  assert.ok(readme.includes('EDITION=pro npm start') && readme.includes('EDITION_REQUIRED'), 'how to run the pro edition');
});

test.run();
