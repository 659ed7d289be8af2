// LedgerX with four parties (two orderer groups of each of two organizations), which tolerate
// one fault: all join, then party 4's consenter is stopped, and loadgen's transactions are still
// ordered (SmartBFT quorum 3 of 4, f = 1) and committed by both organizations' committers
// (ledgerxParties.ts). Skipped, saying why, where the programs are absent.
import { partiesSuite } from './ledgerxParties.ts';

partiesSuite('ledgerX with four parties, one consenter down (real Fabric-X)', { partyOrgs: [0, 1, 0, 1], stopConsenterOfParty: 4, transactions: 200 }).run();
