// The chaincode aggregate: Fabric's name and version rules, idempotent step records, and a
// commit above sequence 1 recorded as an upgrade.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chaincodeRequestIssues, consortiumChaincode, type ChaincodeCommand, type ChaincodeEvent, type ChaincodeState } from '../../../domain/consortium/consortiumChaincode.ts';
import { ConflictError, ValidationError } from '../../../domain/shared/errors.ts';

const test = suite('consortium chaincode aggregate');
const at = '2026-01-01T00:00:00.000Z';
const register = (over: Partial<Extract<ChaincodeCommand, { type: 'RegisterChaincode' }>> = {}): ChaincodeCommand => ({
  type: 'RegisterChaincode', chaincodeId: 1, networkId: 1, channelName: 'ch', name: 'assets', version: '1.0', sequence: 1, language: 'node', endorsementPolicy: null, initRequired: false, collections: null,
  source: { kind: 'files', files: [{ path: 'package.json', content: '{}' }] }, previousChaincodeId: null, at, ...over,
});

function run(commands: ChaincodeCommand[]): { state: ChaincodeState; events: ChaincodeEvent[] } {
  let state = consortiumChaincode.initialState();
  const events: ChaincodeEvent[] = [];
  for (const c of commands) {
    for (const e of consortiumChaincode.decide(c, state)) {
      events.push(e);
      state = consortiumChaincode.evolve(state, e);
    }
  }
  return { state, events };
}

test('names and versions as Fabric allows them', () => {
  for (const ok of ['assets', 'basic-cc', 'my_cc2', 'A1']) assert.equal(chaincodeRequestIssues({ name: ok, version: '1' }), [], ok);
  for (const bad of ['', '-a', 'a--b', 'a b', 'a.b', '_lifecycle', 'lscc', 'cc_']) assert.ok(chaincodeRequestIssues({ name: bad, version: '1' }).some((i) => i.field === 'name'), bad);
  for (const ok of ['1', '1.0.0', 'v2+build_3-rc']) assert.equal(chaincodeRequestIssues({ name: 'a', version: ok }), [], ok);
  for (const bad of ['', 'v 1', '1/2', 'ü']) assert.ok(chaincodeRequestIssues({ name: 'a', version: bad }).some((i) => i.field === 'version'), bad);
  assert.throws(() => run([register({ name: 'bad name' })]), (e: unknown) => e instanceof ValidationError);
  assert.throws(() => run([register({ source: { kind: 'files', files: [] } })]), (e: unknown) => e instanceof ValidationError);
});

test('each step is recorded once: a second install, approval or commit of the same thing records nothing', () => {
  const { events } = run([
    register(),
    { type: 'AssignChaincodeServer', chaincodeId: 1, nodeId: 9, address: '127.0.0.1:9100', packageId: 'assets_1.0:ab', at },
    { type: 'AssignChaincodeServer', chaincodeId: 1, nodeId: 10, address: '127.0.0.1:9101', packageId: 'assets_1.0:cd', at },
    { type: 'RecordChaincodeInstalled', chaincodeId: 1, peerId: 5, peerName: 'p', mspId: 'Org1MSP', packageId: 'assets_1.0:ab', at },
    { type: 'RecordChaincodeInstalled', chaincodeId: 1, peerId: 5, peerName: 'p', mspId: 'Org1MSP', packageId: 'assets_1.0:ab', at },
    { type: 'RecordChaincodeApproved', chaincodeId: 1, mspId: 'Org1MSP', txId: 'aa', blockNumber: 3, at },
    { type: 'RecordChaincodeApproved', chaincodeId: 1, mspId: 'Org1MSP', txId: null, blockNumber: null, at },
    { type: 'RecordChaincodeCommitted', chaincodeId: 1, txId: 'bb', blockNumber: 4, approvedBy: ['Org1MSP'], at },
    { type: 'RecordChaincodeCommitted', chaincodeId: 1, txId: null, blockNumber: null, approvedBy: ['Org1MSP'], at },
  ]);
  assert.equal(events.map((e) => e.type), ['ChaincodeRegistered', 'ChaincodeServerAssigned', 'ChaincodeInstalled', 'ChaincodeApproved', 'ChaincodeDeployed']);
});

test('a commit above sequence 1 is an upgrade; a commit without a package is refused', () => {
  const server = { type: 'AssignChaincodeServer', chaincodeId: 1, nodeId: 9, address: 'h:1', packageId: 'p', at } as const;
  const { events } = run([register({ sequence: 2, version: '2.0' }), server, { type: 'RecordChaincodeCommitted', chaincodeId: 1, txId: 't', blockNumber: 9, approvedBy: [], at }]);
  assert.is(events.at(-1)!.type, 'ChaincodeUpgraded');
  assert.throws(() => run([register(), { type: 'RecordChaincodeCommitted', chaincodeId: 1, txId: 't', blockNumber: 9, approvedBy: [], at }]), (e: unknown) => e instanceof ConflictError);
});

test('Init: only for an initRequired record, only after its commit, recorded once', () => {
  const assign: ChaincodeCommand = { type: 'AssignChaincodeServer', chaincodeId: 1, nodeId: 9, address: '127.0.0.1:9100', packageId: 'assets_1.0:ab', at };
  const commit: ChaincodeCommand = { type: 'RecordChaincodeCommitted', chaincodeId: 1, txId: 't', blockNumber: 3, approvedBy: ['Org1MSP'], at };
  const init = { type: 'RecordChaincodeInitialized' as const, chaincodeId: 1, txId: 'i', blockNumber: 4, at };
  const { events, state } = run([register({ initRequired: true, init: { function: 'Seed', args: ['a'] } }), assign, commit, init, { ...init, txId: 'again' }]);
  assert.equal(events.filter((e) => e.type === 'ChaincodeInitialized').map((e) => e.data), [{ chaincodeId: 1, name: 'assets', networkId: 1, version: '1.0', function: 'Seed', txId: 'i', blockNumber: 4, at }]);
  assert.equal(state.initialized, { txId: 'i', blockNumber: 4 });
  assert.throws(() => run([register({ initRequired: true }), assign, init]), (e: unknown) => e instanceof ConflictError && /not committed/.test(e.message));
  assert.throws(() => run([register(), assign, commit, init]), (e: unknown) => e instanceof ConflictError && /does not require Init/.test(e.message));
  assert.throws(() => run([register({ init: { function: 'Seed', args: [] } })]), (e: unknown) => e instanceof ValidationError && /initRequired/.test(e.message));
});

test.run();
