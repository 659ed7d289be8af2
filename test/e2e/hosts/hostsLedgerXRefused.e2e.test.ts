// A ledgerX committer named onto a Docker host (a second Docker Engine over mutual TLS,
// test/helpers/secondDockerHost.ts): refused, 400 HOST_KIND_UNSUPPORTED, as an orderer group is;
// its services run on this machine or on a registered Kubernetes cluster. Nothing recorded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { apiOf, organization } from '../consortium/consortiumApi.ts';

const t = requires(suite('node hosts: ledgerX nodes on a Docker host are refused'), 'docker-host', secondHostMissing());
let host: SecondDockerHost;
let server: TestServer;
const api = apiOf(() => server);

t.before(async () => {
  host = await startSecondDockerHost();
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'hosts-ledgerx-refused-key-0123456789abcdef' } });
});

t.after(async () => {
  await server?.stop();
  await host?.remove();
});

t('a committer or an orderer group with hostId of a Docker host: 400 HOST_KIND_UNSUPPORTED, no node recorded', async () => {
  const h = await api('POST', '/hosts', { name: 'second', url: host.url, tls: host.pki });
  assert.is(h.status, 201, h.text);
  const org = await organization(api, 'XDockOrg', 'XDockOrgMSP');
  for (const nodeType of ['LEDGERX_COMMITTER', 'LEDGERX_ORDERER_GROUP']) {
    const r = await api('POST', '/nodes', { name: 'xd-bad', platform: 'LEDGERX', nodeType, organizationId: org.id, config: { hostId: h.json.id } });
    assert.is(r.status, 400, r.text);
    assert.is(r.json.code, 'HOST_KIND_UNSUPPORTED', nodeType);
    assert.match(r.json.message, 'Docker host');
  }
  assert.is((await api('GET', '/nodes/platform/LEDGERX')).json.total, 0, 'no node recorded');
});

t.run();
