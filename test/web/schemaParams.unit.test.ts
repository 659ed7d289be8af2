import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { initialValues, toParameters, type ObjectSchema } from '../../web/src/components/schemaParams.ts';

const schemaOf = (file: string) => (parse(readFileSync(new URL(`../../plugins/available/${file}`, import.meta.url), 'utf8')) as { spec: { parameters: ObjectSchema } }).spec.parameters;

test("the shipped anvil-devchain plugin's form starts from its defaults and sends numbers as numbers, leaving empty optional fields to the server", () => {
  const schema = schemaOf('anvil-devchain.yaml');
  const v = initialValues(schema);
  assert.equal(v, { port: '', chainId: '31337', blockTime: '1', image: 'lnm-anvil:local' });
  assert.equal(toParameters(schema, v).issues, { port: 'required' });
  assert.equal(toParameters(schema, { ...v, port: '8645', chainId: '' }), { parameters: { port: 8645, blockTime: 1, image: 'lnm-anvil:local' }, issues: {} });
  assert.equal(toParameters(schema, { ...v, port: '86.5' }).issues, { port: 'must be a whole number' });
  assert.equal(initialValues(schema, { port: 9000, chainId: 5 }).port, '9000', 'the last deploy\'s parameters come back');
});

test("the rest-gateway's x-source parameters send a key id and a list of peer ids, and must be picked", () => {
  const schema = schemaOf('rest-gateway.yaml');
  const v = initialValues(schema);
  assert.equal(v.key, []);
  assert.equal(v.peers, []);
  const empty = toParameters(schema, v).issues;
  assert.is(empty.key, 'required: pick one');
  assert.is(empty.peers, 'required: pick one');
  const r = toParameters(schema, { ...v, key: [7], peers: [3, 4], channelName: 'mychannel', port: '8801' });
  assert.is(r.parameters.key, 7);
  assert.equal(r.parameters.peers, [3, 4]);
});

test('booleans, enums and string lists', () => {
  const schema: ObjectSchema = { type: 'object', required: ['mode'], properties: { on: { type: 'boolean', default: true }, mode: { type: 'string', enum: ['a', 'b'] }, tags: { type: 'array', items: { type: 'string' } }, ports: { type: 'array', items: { type: 'integer' } } } };
  const v = initialValues(schema);
  assert.equal(v, { on: true, mode: '', tags: [], ports: [] });
  assert.equal(toParameters(schema, v).issues, { mode: 'required' });
  assert.equal(toParameters(schema, { on: false, mode: 'b', tags: [' x ', '', 'y'], ports: ['80', '443'] }), { parameters: { on: false, mode: 'b', tags: ['x', 'y'], ports: [80, 443] }, issues: {} });
});

test.run();
