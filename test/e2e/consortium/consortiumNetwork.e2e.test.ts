// Consortium networks end to end with the real Fabric 2.5.12 binaries (found by test/helpers/programs.ts), the
// server as a child process, driven over HTTP: two organizations, three raft orderers spread
// over them, two peers each; a network built, every node joined, a raft leader elected, anchor
// peers set, config blocks in the explorer, a third organization added with both admins'
// signatures. Cross-checked with osnadmin and configtxlator. Then the lifecycle: an orderer
// stopped while the channel keeps ordering, a peer killed from outside (downtime, recovery),
// and a restart of the service with the nodes still running and watched.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing, fabricProgram } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, events, execFileAsync, node, organization, osnadminList, until } from './consortiumApi.ts';

const t = requires(suite('consortium network end to end (real Fabric 2.5.12)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);
const work = mkdtempSync(path.join(tmpdir(), 'lnm-consortium-e2e-'));

let org1: { id: number; mspId: string };
let org2: { id: number; mspId: string };
let org3: { id: number; mspId: string };
const orderers: any[] = [];
const peers: any[] = [];
let network: any;
let configBlock = '';

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
});
t.after(async () => {
  if (!server) return;
  // Nodes outlive the service: delete them so no Fabric process is left behind.
  for (const n of [...peers, ...orderers]) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1500));
  await server.stop();
});

const ordererFiles = (n: any) => {
  const dir = path.join(server.dataDir, 'nodes', `node-${n.id}`, 'tls');
  return { ca: path.join(dir, 'ca.crt'), cert: path.join(dir, 'server.crt'), key: path.join(dir, 'server.key') };
};

t('organizations, three raft orderers over two organizations and two peers each start as real Fabric nodes', async () => {
  org1 = await organization(api, 'Org1', 'Org1MSP');
  org2 = await organization(api, 'Org2', 'Org2MSP');
  org3 = await organization(api, 'Org3', 'Org3MSP');
  const made = await Promise.all([
    node(api, 'orderer0', 'CONSORTIUM_ORDERER', org1.id),
    node(api, 'orderer1', 'CONSORTIUM_ORDERER', org1.id),
    node(api, 'orderer2', 'CONSORTIUM_ORDERER', org2.id),
  ]);
  orderers.push(...made);
  peers.push(...(await Promise.all([node(api, 'peer0-org1', 'CONSORTIUM_PEER', org1.id), node(api, 'peer1-org1', 'CONSORTIUM_PEER', org1.id), node(api, 'peer0-org2', 'CONSORTIUM_PEER', org2.id), node(api, 'peer1-org2', 'CONSORTIUM_PEER', org2.id)])));
  for (const n of [...orderers, ...peers]) {
    assert.is(n.platform, 'CONSORTIUM');
    assert.is(n.healthy, true, `${n.name} /healthz`);
    assert.ok(n.identity_key_id && n.tls_key_id);
    const health = await fetch(n.endpoints.operations);
    assert.is(health.status, 200);
  }
  const identity = await api('GET', `/keys/${peers[0].identity_key_id}`);
  assert.is(identity.json.purpose, 'IDENTITY');
  assert.match(identity.json.certificate.subject, 'OU=peer');
  const listed = await api('GET', '/nodes/platform/CONSORTIUM');
  assert.is(listed.json.total, 7);
  const metrics = await (await fetch(peers[0].endpoints.metrics)).text();
  assert.match(metrics, /^# HELP /m);
});

t('a network built from them records its genesis block; every orderer joins through the channel participation API and a raft leader is elected', async () => {
  const r = await api('POST', '/networks/consortium', { name: 'supply-chain', channelName: 'supplychannel', ordererIds: orderers.map((o) => o.id), peerIds: peers.map((p) => p.id) });
  assert.is(r.status, 201, r.text);
  network = r.json;
  assert.is(network.status, 'genesis_created');
  assert.equal(network.organizations.map((o: any) => o.msp_id).sort(), ['Org1MSP', 'Org2MSP']);
  assert.equal(network.orderer_organizations.map((o: any) => o.msp_id).sort(), ['Org1MSP', 'Org2MSP']);
  assert.is(network.nodes.length, 7);
  for (const o of orderers) {
    const j = await api('POST', `/networks/consortium/${network.id}/orderers/${o.id}/join`);
    assert.is(j.status, 200, j.text);
    assert.is(j.json.already_joined, false);
    assert.is(j.json.orderer.consensus_relation, 'consenter');
  }
  const again = await api('POST', `/networks/consortium/${network.id}/orderers/${orderers[0].id}/join`);
  assert.is(again.status, 200, again.text);
  assert.is(again.json.already_joined, true);
  for (const o of orderers) {
    const listed = await osnadminList(o.config.adminPort, ordererFiles(o));
    assert.match(listed, 'supplychannel');
  }
  await until('a raft leader', async () => {
    for (const o of orderers) {
      const logs = await api('GET', `/nodes/${o.id}/logs?tail=2000`);
      if ((logs.json?.lines ?? []).some((l: string) => /Raft leader changed: \d+ -> [1-9]/.test(l))) return true;
    }
    return null;
  }, 60_000);
  const byName = await api('GET', '/networks/consortium/by-name/supply-chain');
  assert.is(byName.json.id, network.id);
});

t('every peer joins (JoinChain signed by its admin); joins are idempotent, recorded, and organizations are announced once', async () => {
  for (const p of peers) {
    const j = await api('POST', `/networks/consortium/${network.id}/peers/${p.id}/join`);
    assert.is(j.status, 200, j.text);
  }
  const twice = await api('POST', `/networks/consortium/${network.id}/peers/${peers[0].id}/join`);
  assert.is(twice.status, 200, twice.text);
  assert.is(twice.json.already_joined, true);
  const read = await api('GET', `/networks/consortium/${network.id}`);
  assert.ok(read.json.nodes.every((n: any) => n.joined), JSON.stringify(read.json.nodes));
  const audit = await api('GET', '/audit-logs?limit=500&resource_type=network');
  const joinedOrgs = (audit.json.items as any[]).filter((e) => e.details?.event === 'network.organization.joined').map((e) => e.details.mspId).sort();
  assert.equal(joinedOrgs, ['Org1MSP', 'Org2MSP']);
  const channelCreated = (audit.json.items as any[]).filter((e) => e.details?.event === 'network.channel.created').map((e) => e.resource_name);
  assert.equal(channelCreated, ['supplychannel']);
  const peerView = await api('GET', `/nodes/${peers[0].id}`);
  assert.equal(peerView.json.networks.map((n: any) => [n.channel_name, n.joined]), [['supplychannel', true]]);
});

t('anchor peers of both organizations go through config updates and show in channel-config, in configtxlator\'s decoding of the fetched block, and in the map', async () => {
  const a1 = await api('POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: 'Org1MSP', anchorPeers: [{ host: '127.0.0.1', port: peers[0].config.port }] });
  assert.is(a1.status, 200, a1.text);
  assert.is(a1.json.status, 'updated');
  assert.equal(a1.json.signed_by, ['Org1MSP']);
  const a2 = await api('PUT', `/networks/${network.id}/channels/supplychannel/anchor-peers`, { organizationId: 'Org2MSP', anchorPeers: [{ host: '127.0.0.1', port: peers[2].config.port }] });
  assert.is(a2.status, 200, a2.text);
  const cfg = await api('GET', `/networks/consortium/${network.id}/channel-config`);
  assert.is(cfg.status, 200, cfg.text);
  const anchors = (msp: string) => cfg.json.config.channel_group.groups.Application.groups[msp].values.AnchorPeers.value.anchor_peers;
  assert.equal(anchors('Org1MSP'), [{ host: '127.0.0.1', port: peers[0].config.port }]);
  assert.equal(anchors('Org2MSP'), [{ host: '127.0.0.1', port: peers[2].config.port }]);
  assert.ok(cfg.json.block, 'the fetched block is part of the answer');
  configBlock = cfg.json.block;
  const blockFile = path.join(work, 'config.block');
  writeFileSync(blockFile, Buffer.from(cfg.json.block, 'base64'));
  await execFileAsync(fabricProgram('configtxlator'), ['proto_decode', '--type', 'common.Block', '--input', blockFile, '--output', path.join(work, 'config.json')]);
  const decoded = JSON.parse(readFileSync(path.join(work, 'config.json'), 'utf8'));
  const theirs = decoded.data.data[0].payload.data.config;
  assert.equal(theirs.channel_group.groups.Application.groups.Org2MSP.values.AnchorPeers.value, cfg.json.config.channel_group.groups.Application.groups.Org2MSP.values.AnchorPeers.value);
  assert.equal(Object.keys(theirs.channel_group.groups.Orderer.groups).sort(), Object.keys(cfg.json.config.channel_group.groups.Orderer.groups).sort());
  assert.is(String(theirs.sequence), String(cfg.json.sequence));
  const map = await api('GET', `/networks/consortium/${network.id}/map`);
  const org1Map = map.json.organizations.find((o: any) => o.msp_id === 'Org1MSP');
  assert.equal(org1Map.anchor_peers, [{ host: '127.0.0.1', port: peers[0].config.port }]);
  assert.is(org1Map.peers.length, 2);
  assert.is(org1Map.orderers.length, 2);
  assert.ok(org1Map.peers.every((p: any) => p.joined));
});

t('the explorer reads the config blocks from a joined peer: info, blocks newest first, one block with its transactions, a transaction by id', async () => {
  const info = await until('the peers to have the anchor peer blocks', async () => {
    const r = await api('GET', `/networks/consortium/${network.id}/info`);
    return r.status === 200 && r.json.height >= 3 ? r.json : null;
  }, 30_000);
  assert.match(info.current_block_hash, /^[0-9a-f]{64}$/);
  // A joined peer reports its ledger: its height on the channel (as its /metrics says) and the peers its gossip knows.
  const peerRead = await until('the peer to report its ledger height', async () => {
    const r = (await api('GET', `/nodes/${peers[0].id}`)).json;
    return r.block_height >= info.height && r.peer_count >= 1 ? r : null;
  }, 30_000);
  assert.type(peerRead.block_height, 'number');
  assert.is(peerRead.networks.find((n: any) => n.channel_name === 'supplychannel').block_height, peerRead.block_height);
  const ordererRead = (await api('GET', `/nodes/${orderers[0].id}`)).json;
  assert.ok(ordererRead.block_height >= info.height, `orderer height ${ordererRead.block_height}`);
  assert.is(ordererRead.peer_count, 2, 'the two other raft consenters are active');
  const blocks = await api('GET', `/networks/consortium/${network.id}/blocks?limit=10`);
  assert.is(blocks.status, 200, blocks.text);
  assert.is(blocks.json.items[0].number, info.height - 1);
  assert.is(blocks.json.items[0].hash, info.current_block_hash);
  assert.is(blocks.json.items[1].hash, info.previous_block_hash);
  assert.is(blocks.json.items.at(-1).number, 0);
  const one = await api('GET', `/networks/consortium/${network.id}/blocks/1`);
  assert.is(one.status, 200, one.text);
  assert.is(one.json.transactions.length, 1);
  const tx = one.json.transactions[0];
  assert.is(tx.type, 'CONFIG');
  assert.ok(['Org1MSP', 'Org2MSP'].includes(tx.creator_msp_id), JSON.stringify(tx));
  // Config updates carry no transaction id (the orderer writes them so); block 0's transaction has one.
  const genesis = await api('GET', `/networks/consortium/${network.id}/blocks/0`);
  const byId = await api('GET', `/networks/consortium/${network.id}/transactions/${genesis.json.transactions[0].id}`);
  assert.is(byId.status, 200, byId.text);
  assert.is(byId.json.block_number, 0);
  assert.is(byId.json.type, 'CONFIG');
  // Read again, a committed block and transaction are the same answer (kept once read).
  assert.equal((await api('GET', `/networks/consortium/${network.id}/blocks/1`)).json, one.json);
  assert.equal((await api('GET', `/networks/consortium/${network.id}/transactions/${genesis.json.transactions[0].id}`)).json, byId.json);
  const unknown = await api('GET', `/networks/consortium/${network.id}/transactions/${'ab'.repeat(32)}`);
  assert.is(unknown.status, 404, unknown.text);
  assert.is((await api('GET', `/networks/consortium/${network.id}/blocks/9999`)).status, 404);
});

t('adding a third organization collects both admins\' signatures (MAJORITY Admins of two) and is visible afterwards', async () => {
  const r = await api('PUT', `/networks/${network.id}/channels/supplychannel/config`, { organizations: ['Org1MSP', 'Org2MSP', 'Org3MSP'] });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'updated');
  assert.equal([...r.json.signed_by].sort(), ['Org1MSP', 'Org2MSP']);
  const cfg = await api('GET', `/networks/${network.id}/channels/supplychannel/config`);
  assert.ok(cfg.json.config.channel_group.groups.Application.groups.Org3MSP, 'Org3MSP is in the channel');
  const read = await api('GET', `/networks/consortium/${network.id}`);
  assert.ok(read.json.organizations.some((o: any) => o.msp_id === 'Org3MSP'));
});

t('bad input answers 4xx with the error body and records nothing', async () => {
  const before = (await api('GET', '/networks/consortium')).json.total;
  const cases: Array<[string, string, unknown, number, string]> = [
    ['POST', '/nodes', { name: 'ghost', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: 99999 }, 400, 'organizationId'],
    ['POST', '/nodes', { name: 'peerx', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: org1.id, config: { port: peers[0].config.port } }, 409, 'already assigned'],
    ['POST', '/nodes', { name: 'peery', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: org1.id, config: { rpcHttpPort: 9999 } }, 400, 'rpcHttpPort'],
    ['POST', '/networks/consortium', { name: 'bad-channel', channelName: 'Bad_Channel', ordererIds: [orderers[0].id] }, 400, 'channelName'],
    ['POST', '/networks/consortium', { name: 'unknown-node', channelName: 'other', ordererIds: [424242], peerIds: [peers[0].id] }, 400, 'ordererIds'],
    ['POST', '/networks/consortium', { name: 'peer-as-orderer', channelName: 'other', ordererIds: [peers[0].id] }, 400, 'ordererIds'],
    ['POST', '/networks/consortium', { name: 'foreign-peer', channelName: 'other', ordererIds: [orderers[0].id], organizationIds: [org1.id], peerIds: [peers[2].id] }, 400, 'another organization'],
    ['POST', '/networks/consortium', { name: 'supply-chain', channelName: 'other', ordererIds: [orderers[0].id], peerIds: [peers[0].id] }, 409, 'supply-chain'],
    ['POST', `/networks/consortium/${network.id}/peers/${orderers[0].id}/join`, undefined, 400, 'orderer'],
    ['POST', `/networks/consortium/${network.id}/peers/424242/join`, undefined, 404, 'Peer'],
    ['POST', `/networks/consortium/424242/peers/${peers[0].id}/join`, undefined, 404, 'Network'],
    ['POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: 'NopeMSP', anchorPeers: [] }, 400, 'NopeMSP'],
    ['GET', `/networks/424242/channels/supplychannel/config`, undefined, 404, 'Network'],
    ['GET', `/networks/${network.id}/channels/otherchannel/config`, undefined, 404, 'otherchannel'],
  ];
  for (const [method, p, body, status, word] of cases) {
    const r = await api(method, p, body);
    assert.is(r.status, status, `${method} ${p}: ${r.text}`);
    assert.ok(r.json?.code && r.json?.requestId, `${method} ${p} error body`);
    assert.match(r.text, word);
  }
  assert.is((await api('GET', '/networks/consortium')).json.total, before);
  assert.is((await api('GET', '/nodes/platform/CONSORTIUM')).json.total, 7, 'no half-made node');
  // A network of one organization whose peer is stopped: joining a node that is not running is a 409.
  const lone = await api('POST', '/networks/consortium', { name: 'second', channelName: 'secondchannel', ordererIds: [orderers[2].id], peerIds: [peers[3].id] });
  assert.is(lone.status, 201, lone.text);
  assert.is((await api('POST', `/nodes/${peers[3].id}/stop`)).json.status, 'stopped');
  const stopped = await api('POST', `/networks/consortium/${lone.json.id}/peers/${peers[3].id}/join`);
  assert.is(stopped.status, 409, stopped.text);
  assert.match(stopped.text, 'running');
  assert.is((await api('POST', `/nodes/${peers[3].id}/start`)).json.status, 'running');
  assert.is((await api('DELETE', `/networks/consortium/${lone.json.id}`)).status, 204);
  const used = await api('DELETE', `/organizations/${org1.id}`);
  assert.is(used.status, 409, used.text);
  assert.match(used.text, 'orderer0');
  const joined = await api('DELETE', `/networks/consortium/${network.id}`);
  assert.is(joined.status, 409, joined.text);
  assert.match(joined.text, 'delete those nodes first');
});

t('an orderer stopped: the channel keeps ordering through the others (a config update commits); started again it catches up', async () => {
  const stopped = await api('POST', `/nodes/${orderers[0].id}/stop`);
  assert.is(stopped.json.status, 'stopped');
  const before = (await api('GET', `/networks/consortium/${network.id}/info`)).json.height;
  const r = await until('a config update with one orderer down', async () => {
    const u = await api('POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: 'Org1MSP', anchorPeers: [{ host: '127.0.0.1', port: peers[1].config.port }] });
    return u.status === 200 ? u : null;
  }, 60_000, 2000);
  assert.is(r.json.status, 'updated');
  await until('the new block on the peers', async () => ((await api('GET', `/networks/consortium/${network.id}/info`)).json.height > before ? true : null), 30_000);
  const started = await api('POST', `/nodes/${orderers[0].id}/start`);
  assert.is(started.json.status, 'running', started.text);
  const listed = await until('the restarted orderer to serve the channel', async () => {
    const out = await osnadminList(orderers[0].config.adminPort, ordererFiles(orderers[0]));
    return /supplychannel/.test(out) ? out : null;
  }, 30_000);
  assert.match(listed, 'supplychannel');
});

t('a peer killed from outside is reported down (node.downtime), and recovers after a start (node.recovery)', async () => {
  const victim = peers[1];
  const pid = Number(JSON.parse(readFileSync(path.join(server.dataDir, 'nodes', `node-${victim.id}`, 'node.pid.json'), 'utf8')).pid);
  process.kill(pid, 'SIGKILL');
  await until('node.downtime', async () => ((await events(api, victim.id)).includes('node.downtime') ? true : null), 60_000);
  assert.is((await api('GET', `/nodes/${victim.id}`)).json.status, 'down');
  const started = await api('POST', `/nodes/${victim.id}/start`);
  assert.is(started.json.status, 'running', started.text);
  await until('node.recovery', async () => ((await events(api, victim.id)).includes('node.recovery') ? true : null), 60_000);
});

t('the service restarts and the Fabric nodes keep running and are still watched', async () => {
  const pidFile = (n: any) => path.join(server.dataDir, 'nodes', `node-${n.id}`, 'node.pid.json');
  const pidBefore = JSON.parse(readFileSync(pidFile(peers[2]), 'utf8')).pid;
  await server.stop();
  server = await startServer({ env: server.env, dataDir: server.dataDir, databaseUrl: server.databaseUrl ?? undefined, port: server.port });
  const read = await api('GET', `/nodes/${peers[2].id}`);
  assert.is(read.json.status, 'running');
  assert.is(read.json.healthy, true);
  assert.is(JSON.parse(readFileSync(pidFile(peers[2]), 'utf8')).pid, pidBefore, 'the same process');
  process.kill(pidBefore, 'SIGKILL');
  await until('node.downtime after the restart', async () => ((await events(api, peers[2].id)).includes('node.downtime') ? true : null), 60_000);
  assert.is((await api('POST', `/nodes/${peers[2].id}/start`)).json.status, 'running');
  const info = await api('GET', `/networks/consortium/${network.id}/info`);
  assert.is(info.status, 200, info.text);
});

t('POST /networks/{id}/start starts every stopped member of a consortium network', async () => {
  for (const n of [peers[3], orderers[2]]) assert.is((await api('POST', `/nodes/${n.id}/stop`)).json.status, 'stopped');
  const r = await api('POST', `/networks/${network.id}/start`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.nodes.length, 7);
  assert.ok(r.json.nodes.every((n: any) => n.status === 'running'), JSON.stringify(r.json.nodes.map((n: any) => [n.name, n.status])));
});

const hexSerial = (s: string) => s.replace(/:/g, '').toUpperCase().replace(/^0+/, '');

t('a peer\'s certificates are renewed from its organization\'s CAs, it is restarted, and it serves the new TLS certificate', async () => {
  const p = peers[0];
  const before = await api('GET', `/keys/${p.tls_key_id}`);
  const r = await api('POST', `/nodes/${p.id}/certificates/renew`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.node.status, 'running', r.text);
  assert.equal(r.json.certificates.map((c: any) => c.purpose).sort(), ['IDENTITY', 'TLS']);
  const renewed = r.json.certificates.find((c: any) => c.purpose === 'TLS');
  assert.is.not(hexSerial(renewed.serial_number), hexSerial(before.json.certificate.serialNumber));
  const served = await new Promise<string>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: p.config.port, rejectUnauthorized: false, ALPNProtocols: ['h2'] }, () => {
      resolve(socket.getPeerX509Certificate()!.serialNumber);
      socket.end();
    });
    socket.on('error', reject);
  });
  assert.is(hexSerial(served), hexSerial(renewed.serial_number));
  const evm = await api('POST', `/nodes/424242/certificates/renew`);
  assert.is(evm.status, 404);
});

t('no private key appears in the server output or the logs of the nodes', async () => {
  const out = server.output();
  assert.not.match(out, /BEGIN (EC )?PRIVATE KEY/);
  for (const n of [...orderers, ...peers]) {
    const logs = await api('GET', `/nodes/${n.id}/logs?tail=3000`);
    assert.not.match(JSON.stringify(logs.json), /BEGIN (EC )?PRIVATE KEY/);
  }
});

t('with its nodes deleted the network can be deleted, and its channel imported again from the config block', async () => {
  for (const n of [...peers, ...orderers]) assert.is((await api('DELETE', `/nodes/${n.id}`)).status, 204);
  const del = await api('DELETE', `/networks/consortium/${network.id}`);
  assert.is(del.status, 204, del.text);
  const wrong = await api('POST', '/networks/consortium/import', { name: 'imported', channelName: 'otherchannel', block: configBlock, ordererEndpoints: orderers.map((o) => o.config.externalEndpoint) });
  assert.is(wrong.status, 400, wrong.text);
  const junk = await api('POST', '/networks/consortium/import', { name: 'imported', block: Buffer.from('not a block').toString('base64'), ordererEndpoints: ['127.0.0.1:7050'] });
  assert.is(junk.status, 400, junk.text);
  const r = await api('POST', '/networks/consortium/import', { name: 'imported', block: configBlock, ordererEndpoints: orderers.map((o) => o.config.externalEndpoint) });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.imported, true);
  assert.is(r.json.channel_name, 'supplychannel');
  // The block was fetched after the anchor peers were set, before Org3 joined the channel.
  assert.equal(r.json.organizations.map((o: any) => [o.msp_id, o.organization_id]).sort(), [['Org1MSP', org1.id], ['Org2MSP', org2.id]]);
  assert.equal(r.json.orderer_organizations.map((o: any) => o.msp_id).sort(), ['Org1MSP', 'Org2MSP']);
  peers.length = 0;
  orderers.length = 0;
});

t.run();
