// The rules an orderer organization's removal is checked against (domain/consortium/
// ordererOrganizationRules.ts), on channel configs in configtxlator's JSON shape: a BFT channel
// refuses it while a ConsenterMapping entry carries the organization's MSP id (naming each, whatever
// its certificate), accepts it once none does; etcdraft by the consenters' TLS certificates; the
// last orderer organization kept; an unknown one a 404, another consensus a 400; a /Channel or
// /Channel/Orderer policy only the leaving organization's admin could satisfy is a 409 naming it
// (not when the organization stays an application organization, whose MSP the channel keeps).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertOrdererOrganizationRemoval } from '../../../domain/consortium/ordererOrganizationRules.ts';
import type { ChannelConfigJson, ConfigGroupJson } from '../../../domain/consortium/consortiumChannelPorts.ts';
import { group, levelPolicies, meta, org, refused, sig } from './ruleFixtures.ts';

const t = suite('orderer organization removal rules');

const value = (v: unknown) => ({ mod_policy: 'Admins', version: '0', value: v });
const entry = (id: number, mspId: string, tls = `tls-of-${mspId}`) => ({ id, host: `orderer${id}.example.com`, port: 7050 + id, msp_id: mspId, server_tls_cert: tls });

function channel(opts: { consensus: 'BFT' | 'etcdraft' | 'solo'; mapping?: ReturnType<typeof entry>[]; ordererOrgs?: string[]; applicationOrgs?: string[]; ordererAdmins?: ConfigGroupJson['policies'][string] }): ChannelConfigJson {
  const ordererOrgs = opts.ordererOrgs ?? ['Org1MSP', 'Org2MSP'];
  const values: ConfigGroupJson['values'] = opts.consensus === 'BFT'
    ? { ConsensusType: value({ type: 'BFT', metadata: {} }), Orderers: value({ consenter_mapping: opts.mapping ?? [] }) }
    : { ConsensusType: value({ type: opts.consensus, metadata: { consenters: (opts.mapping ?? []).map((m) => ({ host: m.host, port: m.port, server_tls_cert: m.server_tls_cert })) } }) };
  const ordererPolicies: ConfigGroupJson['policies'] = { ...levelPolicies(), ...(opts.ordererAdmins ? { Admins: opts.ordererAdmins } : {}), BlockValidation: meta('ANY', 'Writers') };
  return {
    sequence: '5',
    channel_group: group(levelPolicies(), {
      Application: group(levelPolicies(), Object.fromEntries((opts.applicationOrgs ?? ['Org1MSP']).map((m) => [m, org(m)]))),
      Orderer: group(ordererPolicies, Object.fromEntries(ordererOrgs.map((m) => [m, org(m)])), values),
    }),
  };
}

const noCa = () => false;

t('BFT: refused while a ConsenterMapping entry carries the organization\'s MSP id (each named, whatever its certificate); accepted once none does', () => {
  const held = channel({ consensus: 'BFT', mapping: [entry(1, 'Org1MSP'), entry(2, 'Org1MSP'), entry(3, 'Org1MSP'), entry(4, 'Org2MSP'), entry(5, 'Org2MSP')] });
  const e = refused(() => assertOrdererOrganizationRemoval(held, 'ch', 'Org2MSP', noCa));
  assert.is(e.status, 409);
  assert.is(e.code, 'ORDERER_ORGANIZATION_CONSENTERS');
  assert.match(e.message, 'Rule orderer-organization-consenters: orderer4.example.com:7054, orderer5.example.com:7055 are consenters of channel ch of Org2MSP in its ConsenterMapping');
  assert.match(e.message, 'remove them from the channel\'s consenters first');
  const free = channel({ consensus: 'BFT', mapping: [entry(1, 'Org1MSP'), entry(2, 'Org1MSP'), entry(3, 'Org1MSP'), entry(4, 'Org1MSP')] });
  assertOrdererOrganizationRemoval(free, 'ch', 'Org2MSP', noCa);
  // A consenter of another MSP id whose TLS certificate the organization's CA issued counts too.
  const byCa = refused(() => assertOrdererOrganizationRemoval(free, 'ch', 'Org2MSP', (c) => c === 'tls-of-Org1MSP'));
  assert.is(byCa.code, 'ORDERER_ORGANIZATION_CONSENTERS');
});

t('etcdraft: refused while a consenter\'s TLS certificate is of the organization\'s CA; accepted otherwise', () => {
  const raft = channel({ consensus: 'etcdraft', mapping: [entry(1, 'Org1MSP'), entry(2, 'Org2MSP')] });
  const e = refused(() => assertOrdererOrganizationRemoval(raft, 'ch', 'Org2MSP', (c) => c === 'tls-of-Org2MSP'));
  assert.is(e.code, 'ORDERER_ORGANIZATION_CONSENTERS');
  assert.match(e.message, 'orderer2.example.com:7052 is a consenter of channel ch with a TLS certificate of Org2MSP\'s CA');
  assertOrdererOrganizationRemoval(channel({ consensus: 'etcdraft', mapping: [entry(1, 'Org1MSP')] }), 'ch', 'Org2MSP', (c) => c === 'tls-of-Org2MSP');
});

t('the last orderer organization is kept (409); an unknown one is a 404; another consensus a 400', () => {
  const one = channel({ consensus: 'BFT', mapping: [entry(1, 'Org1MSP')], ordererOrgs: ['Org1MSP'] });
  const last = refused(() => assertOrdererOrganizationRemoval(one, 'ch', 'Org1MSP', noCa));
  assert.is(last.status, 409);
  assert.is(last.code, 'LAST_ORDERER_ORGANIZATION');
  assert.is(refused(() => assertOrdererOrganizationRemoval(one, 'ch', 'Org9MSP', noCa)).status, 404);
  const solo = refused(() => assertOrdererOrganizationRemoval(channel({ consensus: 'solo' }), 'ch', 'Org2MSP', noCa));
  assert.is(solo.status, 400);
  assert.match(solo.message, 'for etcdraft and BFT channels');
});

t('a /Channel/Orderer policy only the leaving organization\'s admin could satisfy is a 409 naming it; not while it stays an application organization', () => {
  const both = sig(['Org1MSP', 'Org2MSP'], 'ADMIN', 2);
  const needs = channel({ consensus: 'BFT', mapping: [entry(1, 'Org1MSP')], ordererAdmins: both });
  const e = refused(() => assertOrdererOrganizationRemoval(needs, 'ch', 'Org2MSP', noCa));
  assert.is(e.status, 409);
  assert.is(e.code, 'POLICY_UNSATISFIABLE');
  assert.match(e.message, 'Rule policy-unsatisfiable: without Org2MSP');
  assert.match(e.message, '/Channel/Orderer/Admins');
  // OR: the others' admins still satisfy it.
  assertOrdererOrganizationRemoval(channel({ consensus: 'BFT', mapping: [entry(1, 'Org1MSP')], ordererAdmins: sig(['Org1MSP', 'Org2MSP'], 'ADMIN', 1) }), 'ch', 'Org2MSP', noCa);
  // Org2 stays an application organization: its MSP (and admin) stays in the channel.
  assertOrdererOrganizationRemoval(channel({ consensus: 'BFT', mapping: [entry(1, 'Org1MSP')], ordererAdmins: both, applicationOrgs: ['Org1MSP', 'Org2MSP'] }), 'ch', 'Org2MSP', noCa);
});

t.run();
