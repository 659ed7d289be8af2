// The docker engine's Fabric releases are the configured images' repositories tagged by version:
// the repository of a reference (a registry's host:port kept, a digest dropped) and a release's image.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imageRepository, releaseImage, releasesAmong, RELEASE_TAG } from '../../../adapters/consortium/fabricReleaseImages.ts';

test('the repository of an image reference', () => {
  assert.is(imageRepository('lnm-fabric-peer:local'), 'lnm-fabric-peer');
  assert.is(imageRepository('hyperledger/fabric-peer:2.5.12'), 'hyperledger/fabric-peer');
  assert.is(imageRepository('registry.example:5000/fabric/peer'), 'registry.example:5000/fabric/peer');
  assert.is(imageRepository('registry.example:5000/fabric/peer:3.1.5'), 'registry.example:5000/fabric/peer');
  assert.is(imageRepository('lnm-fabric-orderer@sha256:abc'), 'lnm-fabric-orderer');
});

test("a release's image: the configured repository tagged by the version", () => {
  assert.is(releaseImage('lnm-fabric-orderer:local', '3.1.5'), 'lnm-fabric-orderer:3.1.5');
  assert.is(releaseImage('hyperledger/fabric-peer:2.5.12', '3.1.5'), 'hyperledger/fabric-peer:3.1.5');
  assert.ok(RELEASE_TAG.test('2.5.12'));
  for (const tag of ['local', 'latest', '3.1', '3.1.5-rc1']) assert.not.ok(RELEASE_TAG.test(tag), tag);
});

test('the releases among an engine\'s image list (a node host\'s Docker, a cluster\'s nodes): both images of a version, newest first', () => {
  const refs = ['lnm-fabric-peer:2.5.12', 'lnm-fabric-orderer:2.5.12', 'lnm-fabric-peer:3.1.5', 'lnm-fabric-orderer:3.1.5', 'lnm-fabric-peer:3.0.0', 'lnm-fabric-peer:local', 'lnm-fabric-orderer:latest', 'other/lnm-fabric-peer:9.9.9', 'lnm-fabric-orderer:9.9.9'];
  assert.equal(releasesAmong(refs, 'lnm-fabric-peer:local', 'lnm-fabric-orderer:local'), ['3.1.5', '2.5.12']);
  assert.equal(releasesAmong(refs, 'hyperledger/fabric-peer:2.5.12', 'lnm-fabric-orderer:local'), []);
  assert.equal(releasesAmong([], 'lnm-fabric-peer:local', 'lnm-fabric-orderer:local'), []);
});

test.run();
