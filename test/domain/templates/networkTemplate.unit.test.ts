import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bindingIssues, placeholdersOf, substitute, templateIssues } from '../../../domain/templates/networkTemplate.ts';

const evm = () => ({
  version: '2.0.0', platform: 'EVM', name: 't', variables: [{ name: 'validator1', type: 'key' }],
  network: { chainId: 1337, validatorKeys: ['${validator1.id}'], alloc: { '${validator1.ethereumAddress}': { balance: '10' } } },
});

test('a well-formed template has no issues, and its placeholders are found in values and in object keys', () => {
  assert.equal(templateIssues(evm()), []);
  assert.equal(placeholdersOf(evm().network).map((u) => `${u.field} ${u.variable}.${u.property}`), [
    'network.validatorKeys[0] validator1.id',
    'network.alloc.${validator1.ethereumAddress} validator1.ethereumAddress',
  ]);
});

test('each kind of template error is reported with its code', () => {
  const codes = (t: Record<string, unknown>) => templateIssues(t).map((i) => i.code);
  assert.equal(codes({ ...evm(), version: '1.0.0' }), ['UNSUPPORTED_VERSION']);
  assert.equal(codes({ ...evm(), platform: 'FABRICX' }), ['UNSUPPORTED_PLATFORM']);
  assert.equal(codes({ ...evm(), platform: 'ledgerx' }), ['UNSUPPORTED_PLATFORM'], 'platforms are upper case, as SPEC spells them');
  assert.equal(codes({ ...evm(), network: { validatorKeys: ['${nobody.id}'] } }), ['PLACEHOLDER_WITHOUT_VARIABLE']);
  assert.equal(codes({ ...evm(), network: { validatorKeys: ['${validator1.mspId}'] } }), ['UNKNOWN_PROPERTY']);
  assert.equal(codes({ ...evm(), variables: [{ name: 'validator1', type: 'wallet' }] }), ['INVALID_VARIABLE']);
  assert.equal(codes({ ...evm(), variables: [{ name: 'validator1', type: 'key' }, { name: 'validator1', type: 'key' }] }), ['INVALID_VARIABLE']);
});

test('bindings: an unknown variable, a binding of the wrong type and a missing binding are each reported', () => {
  const vars = [{ name: 'org1', type: 'organization' as const }, { name: 'peer1', type: 'node' as const }];
  assert.equal(bindingIssues(vars, { org1: { organizationId: 1 }, peer1: { nodeId: 2 } }), []);
  const r = bindingIssues(vars, { org1: { keyId: 1 }, stranger: { nodeId: 3 } });
  assert.equal(r.map((i) => `${i.code} ${i.field}`), ['WRONG_BINDING_TYPE variableBindings.org1', 'UNKNOWN_VARIABLE variableBindings.stranger', 'MISSING_BINDING variableBindings.peer1']);
});

const ledgerx = () => ({
  version: '2.0.0', platform: 'LEDGERX', name: 'lx', variables: [{ name: 'org1', type: 'organization' }, { name: 'org2', type: 'organization' }],
  network: {
    channelName: 'lx', smartBft: { requestBatchMaxCount: 50 }, batching: { maxMessageCount: 20 },
    ordererGroups: [{ organization: '${org1.id}', externalIp: '127.0.0.1' }, { organization: '${org2.id}' }],
    committers: [{ organization: '${org1.id}' }],
  },
});

test('a ledgerX template: organizations as variables, node specs resolve to organization ids; its errors carry their codes', () => {
  assert.equal(templateIssues(ledgerx()), []);
  assert.equal(placeholdersOf(ledgerx().network).map((u) => `${u.field} ${u.variable}.${u.property}`), [
    'network.ordererGroups[0].organization org1.id', 'network.ordererGroups[1].organization org2.id', 'network.committers[0].organization org1.id',
  ]);
  const out = substitute(ledgerx().network, { org1: { id: 3, mspId: 'AMSP' }, org2: { id: 4, mspId: 'BMSP' } }) as any;
  assert.equal(out.ordererGroups, [{ organization: 3, externalIp: '127.0.0.1' }, { organization: 4 }], 'a whole placeholder becomes the id itself, a number');
  assert.equal(out.committers, [{ organization: 3 }]);
  const codes = (t: Record<string, unknown>) => templateIssues(t).map((i) => i.code);
  assert.equal(codes({ ...ledgerx(), network: { ordererGroups: [{ organization: '${org1.ethereumAddress}' }] } }), ['UNKNOWN_PROPERTY']);
  assert.equal(codes({ ...ledgerx(), network: { ordererGroups: [{ organization: '${org3.id}' }] } }), ['PLACEHOLDER_WITHOUT_VARIABLE']);
  const vars = ledgerx().variables as Array<{ name: string; type: 'organization' }>;
  assert.equal(bindingIssues(vars, { org1: { organizationId: 1 }, org2: { organizationId: 2 } }), []);
  const r = bindingIssues(vars, { org1: { nodeId: 1 } });
  assert.equal(r.map((i) => `${i.code} ${i.field}`), ['WRONG_BINDING_TYPE variableBindings.org1', 'MISSING_BINDING variableBindings.org2']);
  assert.match(r[0].message, '{"organizationId": <id>}');
  assert.equal(bindingIssues(vars, { org1: { organizationId: 0 }, org2: { organizationId: 'x' } }).map((i) => i.code), ['WRONG_BINDING_TYPE', 'WRONG_BINDING_TYPE']);
});

test('substitution keeps a whole placeholder typed and splices placeholders inside longer strings and keys', () => {
  const out = substitute({ ids: ['${n.id}'], label: 'peer-${n.id}', alloc: { '${k.ethereumAddress}': { balance: '1' } }, msp: '${m}' }, { n: { id: 7 }, k: { ethereumAddress: '0xabc' }, m: { '': 'Org1MSP' } });
  assert.equal(out, { ids: [7], label: 'peer-7', alloc: { '0xabc': { balance: '1' } }, msp: 'Org1MSP' });
});

test('variables named like Object.prototype properties are looked up as own keys only', () => {
  const proto = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];
  for (const name of proto) {
    const vars = [{ name, type: 'node' as const }];
    // Not bound: reported as missing, not found on Object.prototype.
    assert.equal(bindingIssues(vars, {}).map((i) => `${i.code} ${i.field}`), [`MISSING_BINDING variableBindings.${name}`], name);
    // An unresolved placeholder is an error, never Object.prototype's member.
    assert.throws(() => substitute({ id: `\${${name}}` }, {}), /is not resolved/, name);
    assert.throws(() => substitute({ id: `\${${name}.id}` }, {}), /is not resolved/, name);
    // Resolved (as a parsed JSON body or a null-prototype map would hold it): substituted.
    const resolved = JSON.parse(`{${JSON.stringify(name)}: {"id": 5}}`);
    assert.equal(substitute({ id: `\${${name}.id}` }, resolved), { id: 5 }, name);
  }
  // A property name of Object.prototype on a resolved variable is not a property of it.
  assert.throws(() => substitute({ x: '${n.constructor}' }, { n: { id: 1 } }), /is not resolved/);
});

test.run();
