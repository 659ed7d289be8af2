// Tests that need something this machine may lack (the Fabric programs, a Docker Engine, a real
// Vault, ...) are registered through `requires`: where the dependency is missing, each test is a
// counted skip (uvu's test.skip), its hooks do not run, and the reason is kept for the summary
// that `npm test` prints beside its closing line. A test that needs Fabric never passes without
// running it.
//
//   const it = requires(test, 'fabric', fabricMissing);   // fabricMissing: string | undefined
//   it('joins a channel', async () => { ... });            // skipped, and counted, without Fabric
//   it.before(...)                                          // not run when skipped; an error it
//                                                           // throws fails each test (uvu drops it)
import type { Test } from 'uvu';

/** Every dependency a test may skip for, with what it is and how a developer provides it. */
export const dependencies = {
  fabric: { what: 'the Fabric 2.5 programs (peer, orderer, osnadmin, configtxlator)', how: 'set LNM_FABRIC_BIN to the bin/ of a Fabric 2.5 release, or put the programs on PATH (README: "The platforms\' programs")' },
  'fabric-releases': { what: 'a Fabric 2.5 and a Fabric 3.1 release side by side', how: 'set LNM_FABRIC_RELEASES to their bin/ directories, e.g. /opt/fabric-2.5.12/bin:/opt/fabric-3.1.5/bin (docs/programs.md)' },
  'fabric-3': { what: 'a Fabric 3.1 release (peer, orderer, osnadmin, configtxlator)', how: 'list its bin/ in LNM_FABRIC_RELEASES, or set LNM_FABRIC_BIN to it (docs/programs.md)' },
  'fabric-config': { what: "Fabric 2.5's default core.yaml and orderer.yaml", how: 'set LNM_FABRIC_CFG to a Fabric 2.5 release\'s config/ (CI: ../shared/fabric/config)' },
  'fabric-x': { what: 'the Fabric-X programs (arma, committer)', how: 'set LNM_FABRIC_X_BIN to a directory holding them, or put them on PATH (README: "The platforms\' programs")' },
  docker: { what: 'a Docker Engine that runs containers, with the local images', how: 'run .ci/docker.sh as root (it starts an engine and builds the lnm-*:local images)' },
  'fabric-3-images': { what: 'Fabric 3.1 peer and orderer images tagged by version (lnm-fabric-peer:3.1.x, lnm-fabric-orderer:3.1.x)', how: 'run .ci/docker.sh as root with a Fabric 3.1 release in LNM_FABRIC_RELEASES (docs/consortium.md)' },
  'fabric-release-images': { what: 'Fabric 2.5 and 3.1 peer and orderer images tagged by version (lnm-fabric-peer:2.5.x and :3.1.x, the same of lnm-fabric-orderer)', how: 'run .ci/docker.sh as root with a 2.5 and a 3.1 release in LNM_FABRIC_RELEASES (docs/consortium.md); on the test cluster, test/k8s/cluster.sh import each of them' },
  'chaincode-images': { what: 'the local chaincode images lnm-chaincode-node:local and lnm-chaincode-asset-registry:local', how: 'run .ci/docker.sh as root (it builds them from this host\'s node and node_modules)' },
  'fabric-images': { what: 'the local Fabric images lnm-fabric-peer:local and lnm-fabric-orderer:local', how: 'run .ci/docker.sh as root with the Fabric programs found (LNM_FABRIC_BIN or PATH)' },
  netns: { what: 'root with unshare (util-linux) and ip (iproute2), for a network namespace of its own', how: 'run the tests as root (.ci/run does)' },
  'immutable-files': { what: 'root and chattr (e2fsprogs) on a filesystem with the immutable attribute (ext4) under the temporary directory, for a file even root cannot remove', how: 'run the tests as root with the temporary directory on ext4 (.ci/run does)' },
  'docker-host': { what: 'root with dockerd and ip (iproute2), to start a second Docker Engine in a network namespace', how: 'run the tests as root on a machine with docker.io and iproute2 (.ci/run does)' },
  'fabric-x-images': { what: 'the local Fabric-X images lnm-fabric-x-arma:local and lnm-fabric-x-committer:local', how: 'run .ci/docker.sh as root with the Fabric-X programs found (LNM_FABRIC_X_BIN or PATH)' },
  nginx: { what: "Debian's nginx, the load balancer in front of several instances", how: 'apt-get install nginx-light (.ci/run does), or put nginx on PATH' },
  compose: { what: 'Docker Compose', how: 'apt-get install docker-compose (.ci/run does)' },
  geth: { what: 'go-ethereum 1.13 (geth 1.13.15, the Clique client)', how: 'build geth 1.13.15 from its public sources and set LNM_GETH_BIN to the directory holding it, or put geth on PATH (docs/programs.md)' },
  'geth-image': { what: 'the local geth image lnm-geth:local (geth 1.13.15 with its libraries)', how: 'run .ci/docker.sh as root with geth found (LNM_GETH_BIN or PATH)' },
  besu: { what: 'a real besu (Hyperledger Besu 24.x)', how: 'put besu on PATH or set BESU_PATH; or build the image named by LNM_IMAGE_BESU' },
  vault: { what: 'a real HashiCorp Vault', how: 'set VAULT_ADDR and VAULT_TOKEN (transit and KV v2 mounted)' },
  'vault-image': { what: 'a Vault image for managed Vaults', how: 'set LNM_IMAGE_VAULT to a Vault image the Docker Engine has (hashicorp/vault:1.x)' },
  kms: { what: 'a real AWS KMS', how: 'set KMS_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_REGION)' },
  chromium: { what: "Debian's Chromium (/usr/bin/chromium) for the web console's browser tests", how: 'apt-get install chromium (.ci/run does), or set LNM_CHROMIUM to a Chromium binary' },
  kubernetes: { what: 'a running Kubernetes cluster with the engine\'s namespace, token and the lnm-anvil:local image (test/k8s/cluster.sh)', how: 'run test/k8s/cluster.sh up as root (after test/k8s/cluster.sh build, ~20 min, or with LNM_K8S_BIN set to a build), or set LNM_TEST_K8S_SERVER, LNM_TEST_K8S_CA_FILE, LNM_TEST_K8S_TOKEN, LNM_TEST_K8S_NAMESPACE, LNM_TEST_K8S_STORAGE_CLASS, LNM_TEST_K8S_NODE_ADDRESS' },
  'service-image': { what: 'the image of the service (ledger-network-manager:local) loaded into the test cluster', how: 'run deploy/image.sh --import as root (it needs the Docker Engine of .ci/docker.sh and the cluster of test/k8s/cluster.sh up)' },
  'besu-standin-image': { what: 'the besu stand-in image (lnm-besu-standin:local) loaded into the test cluster', how: 'run a besu docker test once (it builds the image) or any test calling ensureBesuStandinImage, then test/k8s/cluster.sh import lnm-besu-standin:local' },
  eventstoredb: { what: 'a real EventStoreDB/KurrentDB server', how: 'set EVENTSTORE_URL, e.g. kurrentdb://127.0.0.1:2113?tls=false' },
} as const;

export type Dependency = keyof typeof dependencies;

interface SkipRecord {
  count: number;
  reasons: Set<string>;
}

const skips = new Map<Dependency, SkipRecord>();

/** Counts `count` skipped tests against `dependency`, with the reason seen here. */
export function recordSkip(dependency: Dependency, reason: string, count = 1): void {
  const r = skips.get(dependency) ?? { count: 0, reasons: new Set<string>() };
  r.count += count;
  r.reasons.add(reason);
  skips.set(dependency, r);
}

/** What this process skipped, per dependency, in a form a lane sends to `npm test`'s coordinator. */
export type SkipRecords = Partial<Record<Dependency, { count: number; reasons: string[] }>>;
export function skipRecords(): SkipRecords {
  return Object.fromEntries([...skips.entries()].map(([dep, r]) => [dep, { count: r.count, reasons: [...r.reasons] }]));
}

/**
 * The lines `npm test` prints before its closing line: per dependency, how many skipped, why, how
 * to provide it, over the skips of every lane (test/lanes.ts).
 */
export function skipSummary(records: SkipRecords[] = [skipRecords()]): string[] {
  const all = new Map<Dependency, SkipRecord>();
  for (const rec of records) {
    for (const [dep, r] of Object.entries(rec) as [Dependency, { count: number; reasons: string[] }][]) {
      const into = all.get(dep) ?? { count: 0, reasons: new Set<string>() };
      into.count += r.count;
      for (const why of r.reasons) into.reasons.add(why);
      all.set(dep, into);
    }
  }
  return [...all.entries()]
    .sort((a, b) => b[1].count - a[1].count)
    .map(([dep, r]) => `skipped ${r.count} needing ${dependencies[dep].what}: ${[...r.reasons].join('; ')}. To run them: ${dependencies[dep].how}.`);
}

const noop = () => undefined;

/**
 * `test` itself when `missing` is undefined; otherwise a stand-in whose every test is a counted
 * skip recorded against `dependency`, and whose hooks never run.
 */
export function requires<T>(test: Test<T>, dependency: Dependency, missing: string | undefined): Test<T> {
  if (missing === undefined) return reportingSetupErrors(test);
  const skipped = ((name: string) => {
    recordSkip(dependency, missing);
    test.skip(name);
  }) as unknown as Test<T>;
  // `.skip` stays uvu's own (uncounted here): a test skipped on purpose is not one this dependency skipped.
  const hook = Object.assign(noop, { each: noop });
  return Object.assign(skipped, { before: hook, after: hook, only: skipped, skip: (name: string) => test.skip(name), run: () => test.run() }) as unknown as Test<T>;
}

/** The first missing dependency of several, for a suite that needs them all. */
export function firstMissing(...checks: [Dependency, string | undefined][]): [Dependency, string] | undefined {
  const hit = checks.find(([, reason]) => reason !== undefined);
  return hit ? [hit[0], hit[1] as string] : undefined;
}

/** `requires` over several dependencies: skipped for the first one missing. */
export function requiresAll<T>(test: Test<T>, ...checks: [Dependency, string | undefined][]): Test<T> {
  const miss = firstMissing(...checks);
  return miss ? requires(test, miss[0], miss[1]) : reportingSetupErrors(test);
}

/**
 * `test` whose `before` hooks cannot fail silently: uvu's suite runner drops an error thrown by a
 * before hook (its tests then count as neither passed nor failed). Here such an error is kept and
 * thrown again from each test (a before.each registered first), so every test fails with it.
 */
export function reportingSetupErrors<T>(test: Test<T>): Test<T> {
  let failed: { error: unknown } | null = null;
  test.before.each(() => {
    if (failed) throw failed.error;
  });
  const before = Object.assign(
    (fn: (ctx: T) => unknown) =>
      test.before(async (ctx: T) => {
        try {
          await fn(ctx);
        } catch (error) {
          failed ??= { error };
        }
      }),
    { each: test.before.each },
  );
  return new Proxy(test, { get: (target, prop, receiver) => (prop === 'before' ? before : Reflect.get(target, prop, receiver)) });
}
