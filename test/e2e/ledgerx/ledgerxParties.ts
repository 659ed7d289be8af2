// A ledgerX network of several parties end to end on the real Fabric-X programs, for the
// two-party and four-party e2e files: two organizations (XOrgA, XOrgB), the orderer groups named
// by `partyOrgs` (party i+1 of organization partyOrgs[i]), one network whose genesis block the
// service encoded (SmartBFT and batching settings given), every group joined, a committer of
// each organization joined; then optionally one party's consenter stopped (a fault), and
// Fabric-X's loadgen sends transactions through the routers: both committers commit them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricXMissing, fabricXProgram, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, organization, until } from '../consortium/consortiumApi.ts';
import { runLoadgen } from './ledgerxLoadgen.ts';
import { freeGrpcBase } from '../../helpers/ports.ts';

const freeBase = (n: number): Promise<number> => freeGrpcBase(n);

export function partiesSuite(title: string, opts: { partyOrgs: (0 | 1)[]; stopConsenterOfParty?: number; transactions: number }) {
  const t = requires(suite(title), 'fabric-x', fabricXMissing);
  let server: TestServer;
  const api = apiOf(() => server);
  const made: any[] = [];

  t.before(async () => {
    server = await startServer({ env: { ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: 'ledgerx-parties-key-encryption-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '60' } });
  });
  t.after(async () => {
    if (!server) return;
    for (const n of [...made].reverse()) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
    await until('every ledgerX node removed', async () => ((await api('GET', '/nodes/platform/LEDGERX')).json?.total === 0 ? true : null), 60_000).catch(() => undefined);
    const roleIds = made.flatMap((g: any) => (g.ledgerXOrdererGroup ?? g.ledgerXCommitter).roles.map((r: any) => r.nodeId));
    await until('every role process stopped and its directory removed', async () => (roleIds.every((id: number) => !existsSync(path.join(server.dataDir, 'nodes', `node-${id}`))) ? true : null), 60_000).catch(() => undefined);
    await server.stop();
  });

  t(`${opts.partyOrgs.length} parties of two organizations, a committer each: joined${opts.stopConsenterOfParty ? `, party ${opts.stopConsenterOfParty}'s consenter stopped` : ''}, and loadgen's transactions are committed by both committers`, async () => {
    const orgs = [await organization(api, 'XOrgA', 'XOrgAMSP'), await organization(api, 'XOrgB', 'XOrgBMSP')];
    const groups: any[] = [];
    for (const [i, o] of opts.partyOrgs.entries()) {
      const r = await api('POST', '/nodes', { name: `xg${i + 1}`, platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: orgs[o].id, config: { externalIp: '127.0.0.1', grpcPort: await freeBase(4) } });
      assert.is(r.status, 201, r.text);
      groups.push(r.json);
      made.push(r.json);
    }
    const created = await api('POST', '/networks/ledgerx', { name: 'xnetp', channelName: 'armap', ordererGroupIds: groups.map((g) => g.id), smartBft: { requestBatchMaxInterval: '200ms' }, batching: { batchCreationTimeout: '200ms', maxMessageCount: 500 } });
    assert.is(created.status, 201, created.text);
    const network = created.json;
    assert.equal(network.nodes.map((n: any) => [n.party_id, n.msp_id]), opts.partyOrgs.map((o, i) => [i + 1, orgs[o].mspId]));

    // Each group's join waits for its four roles; the consenters reach each other once a quorum runs.
    for (const g of groups) {
      const joined = await api('POST', `/networks/ledgerx/${network.id}/orderer-groups/${g.id}/join`);
      assert.is(joined.status, 200, joined.text);
      assert.is(joined.json.status, 'running');
    }
    const committers: any[] = [];
    for (const [i, org] of orgs.entries()) {
      const r = await api('POST', '/nodes', { name: `xc${i + 1}`, platform: 'LEDGERX', nodeType: 'LEDGERX_COMMITTER', organizationId: org.id, config: { grpcPort: await freeBase(5) } });
      assert.is(r.status, 201, r.text);
      committers.push(r.json);
      made.push(r.json);
      const joined = await api('POST', `/networks/ledgerx/${network.id}/committers/${r.json.id}/join`);
      assert.is(joined.status, 200, joined.text);
      assert.is(joined.json.status, 'running');
    }
    assert.is((await api('GET', `/networks/ledgerx/${network.id}/nodes`)).json.items.length, groups.length * 5 + 12, 'the groups with their roles, two committers with their services');
    if (opts.stopConsenterOfParty) {
      const consenterId = groups[opts.stopConsenterOfParty - 1].ledgerXOrdererGroup.roles.find((r: any) => r.role === 'consenter').nodeId;
      const stopped = await api('POST', `/nodes/${consenterId}/stop`);
      assert.ok(stopped.status < 300, stopped.text);
      assert.is((await api('GET', `/nodes/${consenterId}`)).json.status, 'stopped');
    }

    const loadgen = await fabricXProgram('loadgen');
    if (!loadgen) return;
    const c = committers[0].ledgerXCommitter;
    // Each committer's sidecar holds its organization's admin MSP (the service wrote it).
    const mspDirOf = (committer: any) => path.join(server.dataDir, 'nodes', `node-${committer.ledgerXCommitter.roles.find((x: any) => x.role === 'sidecar').nodeId}`, 'msp');
    const run = await runLoadgen({
      loadgen,
      genesisBlock: Buffer.from((await api('GET', `/networks/ledgerx/${network.id}/genesis`)).json.block, 'base64'),
      channel: network.channel_name,
      mspId: orgs[0].mspId,
      mspDir: mspDirOf(committers[0]),
      // The namespace transaction needs MAJORITY Endorsement: both organizations' admins.
      metaSigners: orgs.map((o, i) => ({ mspId: o.mspId, mspDir: mspDirOf(committers[i]) })),
      sidecarPort: c.sidecarPort,
      coordinatorMetricsUrl: c.coordinatorMetricsUrl,
      transactions: opts.transactions,
    });
    const want = opts.transactions + 2;
    console.log(`  ${opts.partyOrgs.length} parties: loadgen saw ${run.seen} COMMITTED; XOrgA's coordinator counts ${run.committed} committed; loadgen log: ${run.log}`);
    assert.ok(run.committed >= want, `XOrgA's coordinator counts ${run.committed} committed transactions; loadgen's last lines: ${run.lastLines}`);
    assert.ok(run.seen >= opts.transactions, `loadgen saw ${run.seen} COMMITTED`);
    // XOrgB's committer reads the same blocks through its own sidecar.
    const other = committers[1].ledgerXCommitter;
    const count = async () => Number(/coordinator_grpc_committed_transaction_total\{status="COMMITTED"\} (\d+)/.exec(await (await fetch(other.coordinatorMetricsUrl)).text())?.[1] ?? 0);
    const otherCommitted = await until('XOrgB\'s committer commits the same transactions', async () => ((await count()) >= want ? count() : null), 60_000, 1000).catch(() => count());
    assert.ok(otherCommitted >= want, `XOrgB's coordinator counts ${otherCommitted}`);
  });

  return t;
}
