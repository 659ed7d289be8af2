// Which deployment an object on a shared cluster is (issue 39, docs/kubernetes.md "Two deployments
// on one cluster"): another deployment's lnm.deployment label makes it never ours; an object without
// the label (made before it) is nobody else's; the orphan sweep's selectors name this deployment's id
// and, without one, there is no sweep; the cluster check's labelling selects this prefix's objects
// without any deployment label.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEPLOYMENT_LABEL, orphanSelectors, otherDeployment, unlabelledSelector } from '../../../adapters/engines/kubernetesEngine.ts';

const test = suite('kubernetes deployment label');
const meta = (labels: Record<string, string>) => ({ labels: { 'lnm.node': 'node-1', 'lnm.prefix': 'lnm', ...labels } });

test('another deployment\'s id is named; ours, none, or no id of our own is not another\'s', () => {
  assert.is(DEPLOYMENT_LABEL, 'lnm.deployment');
  assert.is(otherDeployment(meta({ 'lnm.deployment': 'b-id' }), 'a-id'), 'b-id');
  assert.is(otherDeployment(meta({ 'lnm.deployment': 'a-id' }), 'a-id'), undefined);
  assert.is(otherDeployment(meta({}), 'a-id'), undefined, 'made before the label: labelled at its next start');
  assert.is(otherDeployment(undefined, 'a-id'), undefined);
  assert.is(otherDeployment(meta({ 'lnm.deployment': 'b-id' }), undefined), undefined);
});

test('the sweep selects this prefix and this deployment only; without an id it selects nothing', () => {
  assert.equal(orphanSelectors('lnm', 'a-id'), {
    objects: 'lnm.prefix=lnm,lnm.deployment=a-id,lnm.node',
    helpers: 'lnm.prefix=lnm,lnm.deployment=a-id,lnm.role in (volume-copy,node-command)',
  });
  assert.is(orphanSelectors('lnm', undefined), null);
  assert.is(orphanSelectors('lnm', ''), null);
});

test('the labelling of objects made before the id selects this prefix\'s node objects without any deployment label', () => {
  assert.is(unlabelledSelector('lnm'), 'lnm.prefix=lnm,!lnm.deployment,lnm.node');
});

test.run();
