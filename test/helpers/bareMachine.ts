// `npm run test:bare`: the suite as a fresh machine runs it. The platforms' programs are never
// installed by the project (README: "The platforms' programs"): a developer builds them by hand,
// and CI on a new machine has none of them. A test that needs one must be a counted skip there,
// never a failure, and a developer's machine that has them cannot show that. This builds the
// environment of such a machine from the developer's own:
//   - every LNM_*_BIN setting, LNM_FABRIC_CFG, LNM_IMAGE_* and the settings that point at a real
//     server no fresh machine has (BESU_PATH, EVENTSTORE_URL, VAULT_ADDR, VAULT_TOKEN, KMS_ENDPOINT)
//     are cleared;
//   - every PATH directory holding a hidden program is replaced by a directory of links to all of
//     its other entries, so docker, node or prometheus beside a hand-built `peer` stay reachable;
//   - the local images built from the hidden programs (.ci/docker.sh makes them only where the
//     programs are found) are named in LNM_TEST_HIDDEN_IMAGES, which test/helpers/dockerAvailability.ts
//     treats as absent;
//   - the test cluster (Kubernetes built by hand, test/k8s/cluster.sh) is not found: the
//     LNM_TEST_K8S_* settings and LNM_K8S_BIN are cleared and LNM_K8S_STATE points at an empty
//     directory, so a cluster left up on this machine (its test.env in /tmp/lnm-k8s) is not used.
import { mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/** The programs a developer builds by hand from the platforms' public sources (none is in a registry reached here). */
export const handBuiltPrograms = [
  // Fabric 2.5 / 3.1
  'peer', 'orderer', 'osnadmin', 'configtxlator', 'configtxgen', 'cryptogen', 'discover', 'ledgerutil', 'fabric-ca-server', 'fabric-ca-client',
  // Fabric-X
  'arma', 'committer', 'armageddon', 'loadgen', 'fxconfig',
  // go-ethereum, besu
  'geth', 'bootnode', 'clef', 'besu',
  // Kubernetes built from Debian's source package
  'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubelet', 'kube-proxy',
] as const;

/** The local images .ci/docker.sh builds from hand-built programs (`repo:*`: every tag, e.g. the Fabric images per release, lnm-fabric-peer:3.1.5). */
export const handBuiltImages = ['lnm-fabric-peer:local', 'lnm-fabric-orderer:local', 'lnm-fabric-peer:*', 'lnm-fabric-orderer:*', 'lnm-fabric-x-arma:local', 'lnm-fabric-x-committer:local', 'lnm-geth:local'];

const clearedExactly = ['LNM_FABRIC_CFG', 'LNM_FABRIC_RELEASES', 'BESU_PATH', 'EVENTSTORE_URL', 'VAULT_ADDR', 'VAULT_TOKEN', 'KMS_ENDPOINT'];
const cleared = (name: string) => clearedExactly.includes(name) || /^LNM_[A-Z0-9_]*_BIN$/.test(name) || name.startsWith('LNM_IMAGE_') || name.startsWith('LNM_TEST_K8S_') || name === 'LNM_K8S_STATE';

export interface BareEnvironment {
  env: Record<string, string>;
  /** Each hidden program with where it was (PATH order: the first one is what a lookup found). */
  hiddenPrograms: string[];
  clearedSettings: string[];
  hiddenImages: string[];
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The environment of a fresh machine made from `env`. `scratch` is an empty directory for the
 * PATH directories of links (one subdirectory per replaced PATH entry).
 */
export function bareEnvironment(env: Record<string, string | undefined>, scratch: string, hidden: readonly string[] = handBuiltPrograms): BareEnvironment {
  const out: Record<string, string> = {};
  const clearedSettings: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (cleared(k)) clearedSettings.push(k);
    else out[k] = v;
  }
  const hiddenPrograms: string[] = [];
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const newPath = dirs.map((dir, i) => {
    const here = hidden.filter((p) => isFile(path.join(dir, p)));
    if (here.length === 0) return dir;
    hiddenPrograms.push(...here.map((p) => path.join(dir, p)));
    const links = path.join(scratch, `path-${i}`);
    mkdirSync(links, { recursive: true });
    for (const entry of readdirSync(dir)) {
      if (!here.includes(entry)) symlinkSync(path.join(dir, entry), path.join(links, entry));
    }
    return links;
  });
  out.PATH = newPath.join(path.delimiter);
  // Where test/helpers/kubernetes.ts looks for a cluster's test.env: nothing there.
  out.LNM_K8S_STATE = path.join(scratch, 'no-test-cluster');
  const hiddenImages = [...new Set([...handBuiltImages, ...clearedSettings.filter((k) => /^LNM_IMAGE_FABRIC/.test(k)).map((k) => env[k] as string)])];
  out.LNM_TEST_HIDDEN_IMAGES = hiddenImages.join(',');
  return { env: out, hiddenPrograms, clearedSettings, hiddenImages };
}

/** The hidden programs a lookup on `env`'s PATH still finds (none, for an environment bareEnvironment made). */
export function stillFound(env: Record<string, string | undefined>, hidden: readonly string[] = handBuiltPrograms): string[] {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return dirs.flatMap((dir) => hidden.filter((p) => isFile(path.join(dir, p))).map((p) => path.join(dir, p)));
}
