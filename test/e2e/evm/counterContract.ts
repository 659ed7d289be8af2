// A contract for call tests, hand-assembled (no Solidity compiler on the machine): get() answers
// the uint256 in slot 0; set(uint256 value) stores it and emits Changed(value); set(0) reverts
// with Error("zero"). Labels are resolved by a two-line assembler below.
import { id } from 'ethers';

export const COUNTER_ABI = ['function get() view returns (uint256)', 'function set(uint256 value)', 'event Changed(uint256 value)'];

const OP: Record<string, number> = {
  STOP: 0x00, EQ: 0x14, ISZERO: 0x15, SHR: 0x1c, CALLDATALOAD: 0x35, CODECOPY: 0x39, MSTORE: 0x52, SLOAD: 0x54, SSTORE: 0x55,
  JUMPI: 0x57, JUMPDEST: 0x5b, DUP1: 0x80, LOG1: 0xa1, RETURN: 0xf3, REVERT: 0xfd,
};

type Item = string | { push: string | number; bytes: number } | { label: string } | { ref: string };

const push = (v: string | number, bytes: number): Item => ({ push: v, bytes });
const hex = (v: string | number, bytes: number) => (typeof v === 'number' ? v.toString(16) : v.replace(/^0x/, '')).padStart(bytes * 2, '0');

function assemble(items: Item[]): string {
  const size = (it: Item) => (typeof it === 'string' ? 1 : 'push' in it ? 1 + it.bytes : 'label' in it ? 1 : 3);
  const labels = new Map<string, number>();
  let pc = 0;
  for (const it of items) {
    if (typeof it === 'object' && 'label' in it) labels.set(it.label, pc);
    pc += size(it);
  }
  return items
    .map((it) => {
      if (typeof it === 'string') return OP[it].toString(16).padStart(2, '0');
      if ('push' in it) return (0x5f + it.bytes).toString(16) + hex(it.push, it.bytes);
      if ('label' in it) return '5b';
      return '61' + hex(labels.get(it.ref)!, 2);
    })
    .join('');
}

const selector = (sig: string) => id(sig).slice(0, 10);
const word = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0');

const RUNTIME = assemble([
  push(0, 1), 'CALLDATALOAD', push(0xe0, 1), 'SHR',
  'DUP1', push(selector('get()'), 4), 'EQ', { ref: 'get' }, 'JUMPI',
  'DUP1', push(selector('set(uint256)'), 4), 'EQ', { ref: 'set' }, 'JUMPI',
  push(0, 1), 'DUP1', 'REVERT',
  { label: 'get' }, push(0, 1), 'SLOAD', push(0, 1), 'MSTORE', push(0x20, 1), push(0, 1), 'RETURN',
  { label: 'set' }, push(4, 1), 'CALLDATALOAD', 'DUP1', 'ISZERO', { ref: 'zero' }, 'JUMPI',
  'DUP1', push(0, 1), 'SSTORE', push(0, 1), 'MSTORE', push(id('Changed(uint256)'), 32), push(0x20, 1), push(0, 1), 'LOG1', 'STOP',
  { label: 'zero' }, push('08c379a0'.padEnd(64, '0'), 32), push(0, 1), 'MSTORE', push(0x20, 1), push(4, 1), 'MSTORE', push(4, 1), push(0x24, 1), 'MSTORE',
  push(word('zero'), 32), push(0x44, 1), 'MSTORE', push(0x64, 1), push(0, 1), 'REVERT',
]);

const runtimeLength = RUNTIME.length / 2;
// Copies the runtime (which follows this 13-byte constructor) to memory and returns it.
const CONSTRUCTOR = assemble([push(runtimeLength, 2), 'DUP1', push(13, 2), push(0, 1), 'CODECOPY', push(0, 1), 'RETURN']);
if (CONSTRUCTOR.length / 2 !== 13) throw new Error(`constructor is ${CONSTRUCTOR.length / 2} bytes`);

export const COUNTER_BYTECODE = '0x' + CONSTRUCTOR + RUNTIME;
