// Which image runs which node software under the docker engine. Specs may name the software
// ("besu") and leave the image reference (registry, tag) to configuration.
export const defaultNodeImages: Readonly<Record<string, string>> = {
  // Pinned: the generated options and genesis are checked against besu 24.12.2 (later releases
  // dropped Clique and PoW block production).
  besu: 'hyperledger/besu:24.12.2',
  anvil: 'lnm-anvil:local', // built locally by .ci/docker.sh: no registry ships one
  // Pinned to the release whose core.yaml / orderer.yaml the launch files are checked against.
  'fabric-peer': 'hyperledger/fabric-peer:2.5.12',
  'fabric-orderer': 'hyperledger/fabric-orderer:2.5.12',
  // Fabric-X (ledgerX): no registry ships images of these releases; .ci/docker.sh builds them from the programs it finds.
  'fabric-x-arma': 'lnm-fabric-x-arma:local',
  'fabric-x-committer': 'lnm-fabric-x-committer:local',
  // Runs a Node.js chaincode's files under the docker engine; built locally by .ci/docker.sh.
  'chaincode-node': 'lnm-chaincode-node:local',
  prometheus: 'prom/prometheus:latest',
  vault: 'hashicorp/vault:latest',
};

/** The environment variable that overrides the image of `software`: LNM_IMAGE_FABRIC_PEER, ... */
export const imageVariable = (software: string) => `LNM_IMAGE_${software.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/** The defaults, each replaced by its LNM_IMAGE_* variable when set. */
export function nodeImagesFromEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(defaultNodeImages).map(([software, image]) => [software, env[imageVariable(software)]?.trim() || image]));
}
