// Genesis inputs for the ledgerX genesis tests: parties with real certificates from test
// organizations' CAs (parties of one MSP share its CAs), ports counted up from 7050.
import { testOrganization, type TestOrganization } from '../../helpers/fabric.ts';
import type { LedgerXGenesisParty } from '../../../domain/ledgerx/ledgerxPorts.ts';

export async function genesisParties(mspIds: string[]): Promise<LedgerXGenesisParty[]> {
  const orgs = new Map<string, TestOrganization>();
  const parties: LedgerXGenesisParty[] = [];
  let port = 7050;
  for (const [i, mspId] of mspIds.entries()) {
    if (!orgs.has(mspId)) orgs.set(mspId, await testOrganization(mspId, `${mspId.toLowerCase()}.example.com`));
    const org = orgs.get(mspId)!;
    const roles = {} as Record<'router' | 'batcher' | 'consenter' | 'assembler', LedgerXGenesisParty['router']>;
    for (const r of ['router', 'batcher', 'consenter', 'assembler'] as const) {
      const m = await org.nodeMaterial(`${r}${i + 1}.${org.domain}`, 'orderer');
      roles[r] = { host: '127.0.0.1', port: port++, tlsCertPem: m.tlsCertPem, signCertPem: m.identityCertPem };
    }
    parties.push({ partyId: i + 1, mspId, signCaCertPem: org.msp.signCaCertPem, tlsCaCertPem: org.msp.tlsCaCertPem, knownCertPems: [org.msp.adminCertPem], ...roles });
  }
  return parties;
}
