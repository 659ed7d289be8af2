// The console's API types (web/src/api/schema.d.ts) are generated from the route schemas; a
// route change without `npm run web:api` fails here, before the console drifts from the API.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { schemaFile, schemaTypes, consoleOpenApi } from '../../web/scripts/openapi.ts';

test('the committed API types are those the route schemas produce (run `npm run web:api` when this fails)', async () => {
  const committed = readFileSync(schemaFile, 'utf8');
  const fresh = await schemaTypes();
  if (committed !== fresh) {
    const a = committed.split('\n');
    const b = fresh.split('\n');
    const at = a.findIndex((line, i) => line !== b[i]);
    assert.unreachable(`web/src/api/schema.d.ts is stale: first difference at line ${at + 1}:\n  committed: ${a[at]}\n  generated: ${b[at]}\nRun \`npm run web:api\`.`);
  }
});

test('every operation of the document has a unique operationId (generated clients key on them)', () => {
  const ids: string[] = [];
  for (const ops of Object.values(consoleOpenApi().paths as Record<string, Record<string, { operationId: string }>>)) for (const op of Object.values(ops)) ids.push(op.operationId);
  assert.is(new Set(ids).size, ids.length, ids.filter((id, i) => ids.indexOf(id) !== i).join(', '));
});

test.run();
