import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Interface } from 'ethers';
import { abiFunctions, argumentValue } from '../../web/src/components/abi.ts';

const HUMAN = [
  'constructor(uint256 v)',
  'function get() view returns (uint256)',
  'function set(uint256 value)',
  'function pair(address to, (uint a, bool b)[] items, bytes32 tag) returns (bool ok, uint256)',
  'function total() pure returns (uint)',
  'event Changed(uint256 value)',
];

test('human-readable fragments: names, signatures as ethers formats them, reads and writes', () => {
  const fns = abiFunctions(HUMAN);
  assert.equal(fns.map((f) => [f.signature, f.read]), [['get()', true], ['set(uint256)', false], ['pair(address,(uint256,bool)[],bytes32)', false], ['total()', true]]);
  assert.equal(fns[2].inputs, [{ type: 'address', name: 'to' }, { type: '(uint256,bool)[]', name: 'items' }, { type: 'bytes32', name: 'tag' }]);
  assert.equal(fns[2].outputs.map((o) => o.type), ['bool', 'uint256']);
  // The signatures are the ones the API's encoder (ethers) resolves.
  const iface = new Interface(HUMAN);
  for (const f of fns) assert.is(iface.getFunction(f.signature)!.format(), f.signature);
});

test('JSON fragments, tuples from components, and the same answers from the same contract', () => {
  const json = JSON.parse(new Interface(HUMAN).formatJson());
  const fns = abiFunctions(json);
  assert.equal(fns.map((f) => [f.signature, f.read]), abiFunctions(HUMAN).map((f) => [f.signature, f.read]));
  assert.equal(abiFunctions([{ type: 'function', name: 'old', inputs: [], outputs: [], constant: true }])[0].read, true);
  assert.equal(abiFunctions('not an array'), []);
  assert.equal(abiFunctions([null, 42, { type: 'event', name: 'E' }, 'garbage']), []);
});

test('arguments: text as typed, booleans and JSON arrays parsed, with the parameter named on a mistake', () => {
  assert.is(argumentValue({ type: 'uint256', name: 'v' }, ' 123456789012345678901234567890 '), '123456789012345678901234567890');
  assert.is(argumentValue({ type: 'bool', name: 'b' }, 'true'), true);
  assert.equal(argumentValue({ type: 'uint256[]', name: 'xs' }, '[1, "2"]'), [1, '2']);
  assert.throws(() => argumentValue({ type: 'bool', name: 'flag' }, 'yes'), /flag: true or false/);
  assert.throws(() => argumentValue({ type: '(uint256,bool)', name: 'item' }, '[1,'), /item: an array or tuple/);
});

test.run();
