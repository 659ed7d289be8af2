// The signing proposal's change kinds for an organization's MSP update and an orderer
// organization added, its endpoints or its removal (issue 37 item 6): POST /nodesharing/proposals takes them
// with the same body fields and bounds as the direct routes, and hands them to the use cases in
// their terms. Refused bodies are a 400 naming the field before anything is planned.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sharingProposalRoutes, proposalChange } from '../../http/routes/sharingProposals.ts';
import { validate } from '../../http/validation.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

const route = sharingProposalRoutes.find((r) => r.method === 'post' && r.path === '/nodesharing/proposals')!;
const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const body = (change: unknown) => validate<{ change: any }>(route.body!, { network_id: 1, change }, 'body');
const refused = (change: unknown) => {
  try {
    body(change);
  } catch (err) {
    assert.instance(err, ValidationError);
    return ((err as ValidationError).details ?? []).map((d) => `${d.field} ${d.message}`).join('; ');
  }
  throw new Error(`not refused: ${JSON.stringify(change)}`);
};

test('an MSP update is a proposal kind: the MSP route\'s fields, given to the use case as its MspUpdate', () => {
  const v = body({ type: 'msp_update', msp_id: 'Org2MSP', rootCerts: [pem], intermediateCerts: [pem], admins: [] });
  assert.equal(proposalChange(v.change), { type: 'msp_update', mspId: 'Org2MSP', update: { rootCerts: [pem], intermediateCerts: [pem], admins: [] } });
  assert.match(refused({ type: 'msp_update', msp_id: 'Org2MSP', rootCerts: ['not a certificate'] }), 'change.rootCerts.0 must match pattern');
  assert.match(refused({ type: 'msp_update', msp_id: 'Org2MSP', rootCerts: Array(11).fill(pem) }), 'change.rootCerts must NOT have more than 10 items');
  assert.match(refused({ type: 'msp_update', rootCerts: [pem] }), 'change.msp_id is required');
  assert.match(refused({ type: 'msp_update', msp_id: 'Org2MSP', crl: [pem] }), 'change.crl is not a known field');
});

test('an orderer organization added is a proposal kind, bounded as its route', () => {
  assert.equal(proposalChange(body({ type: 'add_orderer_organization', msp_id: 'Org2MSP', endpoints: ['orderer0.org2.example.com:7050'] }).change), { type: 'add_orderer_organization', mspId: 'Org2MSP', endpoints: ['orderer0.org2.example.com:7050'] });
  assert.match(refused({ type: 'add_orderer_organization', msp_id: 'Org2MSP' }), 'change.endpoints is required');
  assert.match(refused({ type: 'add_orderer_organization', msp_id: 'Org2MSP', endpoints: [] }), 'change.endpoints must NOT have fewer than 1 items');
  assert.match(refused({ type: 'add_orderer_organization', endpoints: ['o.example.com:7050'] }), 'change.msp_id is required');
});

test('orderer endpoints and an orderer organization\'s removal are proposal kinds, bounded as their routes', () => {
  assert.equal(proposalChange(body({ type: 'orderer_endpoints', msp_id: 'OrdererMSP', endpoints: ['orderer0.example.com:7050'] }).change), { type: 'orderer_endpoints', mspId: 'OrdererMSP', endpoints: ['orderer0.example.com:7050'] });
  assert.equal(proposalChange(body({ type: 'remove_orderer_organization', msp_id: 'Orderer2MSP' }).change), { type: 'remove_orderer_organization', mspId: 'Orderer2MSP' });
  assert.match(refused({ type: 'orderer_endpoints', msp_id: 'OrdererMSP', endpoints: [] }), 'change.endpoints must NOT have fewer than 1 items');
  assert.match(refused({ type: 'orderer_endpoints', msp_id: 'OrdererMSP', endpoints: Array(21).fill('o.example.com:7050') }), 'change.endpoints must NOT have more than 20 items');
  assert.match(refused({ type: 'remove_orderer_organization', msp_id: '' }), 'change.msp_id must NOT have fewer than 1 characters');
  assert.match(refused({ type: 'remove_orderer_organization', msp_id: 'Orderer2MSP', endpoints: ['o:1'] }), 'change.endpoints is not a known field');
});

test.run();
