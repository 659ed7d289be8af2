// Golden files: what a generator must produce, kept in test/golden/ and reviewed like code.
// A missing golden file is a failure (a test that writes its own expectation and then passes
// against it proves nothing); UPDATE_GOLDEN=1 writes them after a deliberate change, to review
// in the diff.
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const goldenRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'golden');

/** Asserts `actual` equals test/golden/<name>; writes it instead only under UPDATE_GOLDEN=1. */
export function assertGolden(name: string, actual: string): void {
  const file = path.join(goldenRoot, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, actual);
  }
  if (!existsSync(file)) assert.unreachable(`the golden file test/golden/${name} is missing; run the test with UPDATE_GOLDEN=1 to write it, then review it`);
  assert.fixture(actual, readFileSync(file, 'utf8'));
}
