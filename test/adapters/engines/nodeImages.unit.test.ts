import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultNodeImages, imageVariable, nodeImagesFromEnv } from '../../../adapters/engines/nodeImages.ts';

test('each software has a default image and an LNM_IMAGE_* variable overrides it', () => {
  assert.is(imageVariable('fabric-peer'), 'LNM_IMAGE_FABRIC_PEER');
  const images = nodeImagesFromEnv({ LNM_IMAGE_BESU: 'registry.local/besu:24.12.2', LNM_IMAGE_VAULT: '  ' });
  assert.is(images.besu, 'registry.local/besu:24.12.2');
  assert.is(images.vault, defaultNodeImages.vault, 'a blank variable keeps the default');
  assert.is(images.anvil, 'lnm-anvil:local');
  assert.equal(Object.keys(images).sort(), Object.keys(defaultNodeImages).sort());
});

test.run();
