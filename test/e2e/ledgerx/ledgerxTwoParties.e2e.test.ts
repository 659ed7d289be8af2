// LedgerX with two organizations, one orderer group each (two parties: SmartBFT's quorum of two
// consenters is both), a committer each, on the real Fabric-X programs (ledgerxParties.ts):
// joined, and loadgen's transactions committed by both committers. Skipped, saying why, where
// the programs are absent.
import { partiesSuite } from './ledgerxParties.ts';

partiesSuite('ledgerX with two organizations, two parties (real Fabric-X)', { partyOrgs: [0, 1], transactions: 200 }).run();
