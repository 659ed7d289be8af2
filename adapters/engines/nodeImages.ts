// Which image runs which node software under the docker engine. Specs may name the software
// ("besu") and leave the image reference (registry, tag) to configuration.
export const defaultNodeImages: Readonly<Record<string, string>> = {
  // Pinned: the generated options and genesis are checked against besu 24.12.2 (later releases
  // dropped Clique and PoW block production).
  besu: 'hyperledger/besu:24.12.2',
  anvil: 'lnm-anvil:local', // built locally by .ci/docker.sh: no registry ships one
  // geth 1.13 (Clique): built locally by .ci/docker.sh from the geth it finds (LNM_GETH_BIN, else PATH).
  geth: 'lnm-geth:local',
  // Pinned to the release whose core.yaml / orderer.yaml the launch files are checked against.
  'fabric-peer': 'hyperledger/fabric-peer:2.5.12',
  'fabric-orderer': 'hyperledger/fabric-orderer:2.5.12',
  // Fabric-X (ledgerX): no registry ships images of these releases; .ci/docker.sh builds them from the programs it finds.
  'fabric-x-arma': 'lnm-fabric-x-arma:local',
  'fabric-x-committer': 'lnm-fabric-x-committer:local',
  // Runs a Node.js chaincode's files under the docker engine; built locally by .ci/docker.sh.
  'chaincode-node': 'lnm-chaincode-node:local',
  // The service's own image (deploy/image.sh): the kubernetes engine runs steps of the service's
  // code with its Node.js in a node's pod (anvil's state file cleanup, anvilStateFile.ts).
  service: 'ledger-network-manager:local',
  prometheus: 'prom/prometheus:latest',
  vault: 'hashicorp/vault:latest',
};

/** The environment variable that overrides the image of `software`: LNM_IMAGE_FABRIC_PEER, ... */
export const imageVariable = (software: string) => `LNM_IMAGE_${software.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/** The defaults, each replaced by its LNM_IMAGE_* variable when set. */
export function nodeImagesFromEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(defaultNodeImages).map(([software, image]) => [software, env[imageVariable(software)]?.trim() || image]));
}

/**
 * The prefix of the names a deployment gives on a Docker Engine (node containers, their volumes,
 * plugin Compose projects): two deployments sharing an engine each need their own, or the second
 * is refused the first one's containers (LNM_DOCKER_PREFIX).
 */
export const DEFAULT_DOCKER_PREFIX = 'lnm-';

/** A valid prefix: a container name and a Compose project name both accept it (lowercase). */
export const DOCKER_PREFIX_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** The prefix LNM_DOCKER_PREFIX gives (default lnm-); an invalid one throws, saying what is allowed. */
export function dockerPrefixFromEnv(env: Record<string, string | undefined>): string {
  const value = env.LNM_DOCKER_PREFIX?.trim() || DEFAULT_DOCKER_PREFIX;
  if (!DOCKER_PREFIX_PATTERN.test(value)) {
    throw new Error(`LNM_DOCKER_PREFIX must be lowercase letters, digits, - and _, starting with a letter or digit, at most 40 characters, got ${JSON.stringify(value.slice(0, 60))}`);
  }
  return value;
}
