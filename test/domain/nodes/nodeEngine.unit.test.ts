import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failureLine, launchSpecIssues, maskSecrets, redactLogLine, NodeStartFailedError, type NodeLaunchSpec } from '../../../domain/nodes/nodeEngine.ts';

const spec = (over: Partial<NodeLaunchSpec> = {}): NodeLaunchSpec => ({
  nodeKey: 'node-1',
  displayName: 'validator 1',
  process: { command: '/usr/bin/besu', args: [] },
  docker: { image: 'hyperledger/besu:24.12', args: [] },
  files: [{ path: 'keys/key', content: 'k', secret: true }],
  ports: [8545],
  ...over,
});

test('a complete spec has no issues for either engine', () => {
  assert.equal(launchSpecIssues(spec(), 'process'), []);
  assert.equal(launchSpecIssues(spec(), 'docker'), []);
});

test('node keys and file paths that could leave the node directory are refused', () => {
  const fields = (s: NodeLaunchSpec) => launchSpecIssues(s, 'process').map((i) => i.field);
  assert.equal(fields(spec({ nodeKey: '../x' })), ['nodeKey']);
  assert.equal(fields(spec({ nodeKey: '' })), ['nodeKey']);
  assert.equal(fields(spec({ files: [{ path: '../../etc/passwd', content: '' }, { path: '/abs', content: '' }, { path: 'ok/file', content: '' }] })), ['files[0].path', 'files[1].path']);
  assert.equal(fields(spec({ files: [{ path: 'node.pid.json', content: '{}' }] })), ['files[0].path']);
});

test('each engine asks for its own run description, and ports must be real ports', () => {
  assert.equal(launchSpecIssues(spec({ process: undefined }), 'process').map((i) => i.field), ['process']);
  assert.equal(launchSpecIssues(spec({ process: { command: 'besu', args: [] } }), 'process').map((i) => i.field), ['process.command']);
  assert.equal(launchSpecIssues(spec({ docker: undefined }), 'docker').map((i) => i.field), ['docker.image']);
  assert.equal(launchSpecIssues(spec({ ports: [0, 70000] }), 'docker').map((i) => i.field), ['ports[0]', 'ports[1]']);
});

test('maskSecrets hides 32-byte hex strings such as private keys and keeps the rest', () => {
  const key = '0x' + 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
  assert.is(maskSecrets(`(0) ${key}`), '(0) 0x<redacted>');
  assert.is(maskSecrets(`key ${key.slice(2)} end`), 'key <redacted> end');
  assert.is(maskSecrets('Listening on 127.0.0.1:8545'), 'Listening on 127.0.0.1:8545');
});

test('failureLine names the line that says why a node stopped, not a usage trailer after it', () => {
  assert.is(failureLine(["Unknown option: '--no-such-option=1'", 'To display full help:', 'besu [COMMAND] --help']), "Unknown option: '--no-such-option=1'");
  assert.is(failureLine(['starting', 'Error: listen EADDRINUSE: address already in use 127.0.0.1:8545', '    at Server.setupListenHandle']), 'Error: listen EADDRINUSE: address already in use 127.0.0.1:8545');
  assert.is(failureLine(['starting', 'bye']), 'bye', 'without a failure word, the last line');
  assert.is(failureLine([]), undefined);
});

test('a start failure carries its reason and an HTTP status that fits it', () => {
  assert.is(new NodeStartFailedError('port-in-use', 'm', { nodeKey: 'n' }).status, 409);
  assert.is(new NodeStartFailedError('engine-unavailable', 'm', { nodeKey: 'n' }).status, 503);
  const exited = new NodeStartFailedError('exited', 'm', { nodeKey: 'n', lastLogLines: ['boom'] });
  assert.is(exited.code, 'NODE_START_FAILED');
  assert.equal(exited.lastLogLines, ['boom']);
  assert.is(exited.extra?.failure, 'exited');
});

test("redactLogLine hides anvil's private key list and mnemonic but keeps addresses and hashes", () => {
  assert.is(redactLogLine('(0) 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'), '(0) 0x<redacted>');
  assert.is(redactLogLine('Mnemonic:          test test test test test test test test test test test junk'), 'Mnemonic:          <redacted>');
  assert.is(redactLogLine('node private key: 59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'), 'node private key: <redacted>');
  const account = '(0) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000.000000000000000000 ETH)';
  assert.is(redactLogLine(account), account);
  const block = '    Block Hash: 0x1d59ff54b1eb26b013ce3cb5fc9dab3705b415a67127a003c3e61eb445bb8df2';
  assert.is(redactLogLine(block), block);
});

test.run();
