// The chaincode port (domain/consortium/consortiumChaincodePorts.ts) over real Fabric peers:
// _lifecycle calls (chaincodeLifecycle.ts), ccaas packages (chaincodePackage.ts), chaincode
// servers on the process or docker engine or a Kubernetes cluster (chaincodeServerRuntime.ts) and the gateway (chaincodeGateway.ts).
import type { ConsortiumChaincodes } from '../../domain/consortium/consortiumChaincodePorts.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import type { NodeEngine } from '../../domain/nodes/nodeEngine.ts';
import { approveForMyOrg, commitDefinition, commitReadiness, committedDefinition, initChaincode, install, installed } from './chaincodeLifecycle.ts';
import { ccaasPackageOf, chaincodeFiles, untarGz } from './chaincodePackage.ts';
import { signaturePolicyEnvelope } from './channelConfigPolicies.ts';
import { createChaincodeServerRuntime } from './chaincodeServerRuntime.ts';
import { evaluateTransaction, submitTransaction } from './chaincodeGateway.ts';

export function fabricConsortiumChaincodes(options: { dataDir: string; env?: Record<string, string | undefined>; hostEngine?: (hostId: number) => Promise<NodeEngine | null> }): ConsortiumChaincodes {
  return {
    packageOf: ccaasPackageOf,
    filesOfArchive: untarGz,
    checkDefinition(files, endorsementPolicy, collections) {
      (collections ?? []).forEach((c, i) => {
        try {
          signaturePolicyEnvelope(c.policy);
        } catch (err) {
          throw new ValidationError(`The policy of collection ${c.name} does not parse: ${(err as Error).message}`, [{ field: `collections[${i}].policy`, message: 'not a signature policy such as OR(\'Org1MSP.member\',\'Org2MSP.member\')' }]);
        }
        if (c.maxPeerCount < c.requiredPeerCount) throw new ValidationError(`Collection ${c.name}: maxPeerCount is below requiredPeerCount.`, [{ field: `collections[${i}].maxPeerCount`, message: 'must be at least requiredPeerCount' }]);
      });
      if (new Set((collections ?? []).map((c) => c.name)).size !== (collections ?? []).length) throw new ValidationError('Collection names must differ.', [{ field: 'collections', message: 'each name once' }]);
      if (endorsementPolicy && !endorsementPolicy.startsWith('/')) {
        try {
          signaturePolicyEnvelope(endorsementPolicy);
        } catch (err) {
          throw new ValidationError(`The endorsement policy does not parse: ${(err as Error).message}`, [{ field: 'endorsementPolicy', message: 'not a signature policy such as AND(\'Org1MSP.peer\',\'Org2MSP.peer\') nor a policy reference such as /Channel/Application/Endorsement' }]);
        }
      }
      if (!files) return;
      const pkg = files.find((f) => f.path === 'package.json');
      if (!pkg) throw new ValidationError('The chaincode needs a package.json (its "main" names the file that exports `contracts`).', [{ field: 'source.files', message: 'no package.json' }]);
      let main: unknown;
      try {
        main = (JSON.parse(pkg.content) as { main?: unknown }).main;
      } catch {
        throw new ValidationError('The chaincode\'s package.json is not JSON.', [{ field: 'source.files', message: 'package.json is not JSON' }]);
      }
      const out = chaincodeFiles(files);
      if (typeof main !== 'string' || !out.some((f) => f.path === main.replace(/^\.\//, ''))) {
        throw new ValidationError(`The chaincode's package.json "main" (${String(main)}) names no file of the chaincode (a .ts file counts as its .js).`, [{ field: 'source.files', message: 'package.json main names no file' }]);
      }
    },
    installed: (p) => installed(p.peer, p.signer),
    install: (p, bytes, packageId) => install(p.peer, p.signer, bytes, packageId),
    committedDefinition: (p, channel, name) => committedDefinition(p.peer, p.signer, channel, name),
    commitReadiness: (p, channel, def) => commitReadiness(p.peer, p.signer, channel, def),
    approveForMyOrg,
    commitDefinition,
    initialize: initChaincode,
    submit: submitTransaction,
    evaluate: evaluateTransaction,
    servers: createChaincodeServerRuntime(options),
  };
}
