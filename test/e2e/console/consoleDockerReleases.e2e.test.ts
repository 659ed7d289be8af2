// The console's Fabric release choice under the docker engine (issue 37 items 1 and 9) in Chromium
// against the Fabric images .ci/docker.sh builds per release (lnm-fabric-orderer:2.5.12, :3.1.5): the
// node form, with the docker engine, offers the releases with images (newest first, after "the
// newest"); an orderer created on the older one runs that release's container (its operations
// endpoint's /version says so) and its page shows the release; the page then offers the newer
// release image as an upgrade (issue 37 item 7): its container is made again from that image. A counted skip without Chromium, a
// Docker Engine, or images of two releases.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { dockerSkipReason, imagesMissing } from '../../helpers/dockerAvailability.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { imageReleases } from '../../../adapters/consortium/fabricReleaseImages.ts';
import { apiOf, consortiumEnv, organization, removeConsortiumNodes, until } from '../consortium/consortiumApi.ts';

const docker = new Docker();
const images = { LNM_IMAGE_FABRIC_PEER: 'lnm-fabric-peer:local', LNM_IMAGE_FABRIC_ORDERER: 'lnm-fabric-orderer:local' };
const dockerMissing = await dockerSkipReason();
const releases = dockerMissing ? [] : await imageReleases(docker, images.LNM_IMAGE_FABRIC_PEER, images.LNM_IMAGE_FABRIC_ORDERER);
const older = releases[1];
const imagesAbsent = older
  ? await imagesMissing([`lnm-fabric-orderer:${older}`, `lnm-fabric-orderer:${releases[0]}`])
  : `images of two Fabric releases are needed (lnm-fabric-peer:<version>, lnm-fabric-orderer:<version>; found: ${releases.join(', ') || 'none'})`;
const t = requiresAll(suite('console: Fabric releases under the docker engine (release images, Chromium)'), ['chromium', chromiumMissing()], ['docker', dockerMissing], ['fabric-3-images', imagesAbsent]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let orderer: any;
const ourContainers = (dataDir: string) => docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${dataDir}`] } });

t.before(async () => {
  // No Fabric program on this host for the service (the docker nodes run their images): the releases offered are the images'.
  ui = await startConsoleSession({ server: { env: consortiumEnv({ LNM_NODE_ENGINE: 'docker', LNM_DOCKER_PREFIX: `cdr${process.pid % 100000}-`, ...images, LNM_FABRIC_RELEASES: '', LNM_FABRIC_BIN: '' }) } });
  ({ server, page } = ui);
});

t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  for (const c of await ourContainers(server.dataDir)) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  await ui.close();
});

t('the node form offers the docker engine releases; an orderer on the older one runs its image and its page says the release', async () => {
  await organization(api, 'DockRel', 'DockRelMSP');
  await ui.signIn();
  await ui.nav('Nodes').click();
  await page.getByRole('button', { name: 'Create node' }).click();
  const form = page.getByRole('form', { name: 'New node' });
  await form.getByLabel('Name', { exact: true }).fill('dock-rel-orderer');
  await form.getByLabel('Kind').selectOption('CONSORTIUM_ORDERER');
  await form.getByLabel('Organization').selectOption({ label: 'DockRel (DockRelMSP)' });
  const picker = form.getByLabel('Fabric release');
  await until('the docker releases offered', async () => (await picker.locator('option').count()) === releases.length + 1, 20_000);
  assert.equal(await picker.locator('option').allInnerTexts(), [`The newest (${releases[0]})`, ...releases.map((v) => `Fabric ${v}`)]);
  await picker.selectOption({ label: `Fabric ${older}` });
  await ui.accessible('the node form with the docker engine releases');
  await form.getByRole('button', { name: 'Create node' }).click();
  // A refusal stays in the form: said with the failure.
  await page.getByRole('heading', { name: /^dock-rel-orderer/, level: 1 }).waitFor({ timeout: 180_000 }).catch(async (err) => {
    throw new Error(`${(err as Error).message}\nthe form says: ${await form.innerText().catch(() => '(gone)')}`);
  });
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  const node = (await api('GET', `/nodes/${id}`)).json;
  assert.is(node.engine, 'docker');
  assert.is(node.status, 'running', `${node.status} ${node.error ?? ''}`);
  assert.is(node.fabric_version, older);
  const containers = await ourContainers(server.dataDir);
  assert.equal(containers.map((c) => c.Image), [`lnm-fabric-orderer:${older}`]);
  // The real program in the container reports the release picked.
  const res = await fetch(`http://127.0.0.1:${node.config.operationsPort}/version`);
  assert.is(((await res.json()) as { Version: string }).Version, older);
  await page.getByTestId('node-fabric-version').getByText(older, { exact: true }).waitFor();
  orderer = node;
});

t('the docker orderer\'s page offers the newer release image: upgraded, its container on that image, the page says so', async () => {
  const upgrade = page.getByRole('region', { name: 'Fabric release' });
  await upgrade.getByLabel('Upgrade to').waitFor({ timeout: 20_000 });
  assert.equal(await upgrade.getByLabel('Upgrade to').locator('option').allInnerTexts(), releases.filter((v) => releases.indexOf(v) < releases.indexOf(older)).map((v) => `Fabric ${v}`));
  await upgrade.getByLabel('Upgrade to').selectOption({ label: `Fabric ${releases[0]}` });
  await upgrade.getByRole('button', { name: 'Upgrade', exact: true }).click();
  await upgrade.getByRole('button', { name: 'Upgrade now' }).click();
  await upgrade.getByRole('status').getByText(`Upgraded to Fabric ${releases[0]}`).waitFor({ timeout: 180_000 });
  await page.getByTestId('node-fabric-version').getByText(releases[0]!, { exact: true }).waitFor({ timeout: 20_000 });
  assert.equal((await ourContainers(server.dataDir)).map((c) => c.Image), [`lnm-fabric-orderer:${releases[0]}`]);
  const res = await fetch(`http://127.0.0.1:${orderer.config.operationsPort}/version`);
  assert.is(((await res.json()) as { Version: string }).Version, releases[0]);
  await ui.accessible('the docker node\'s upgrade done');
});

t.run();
