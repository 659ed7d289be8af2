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

test.run();
