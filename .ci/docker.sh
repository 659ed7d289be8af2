#!/usr/bin/env bash
# Brings up a local Docker Engine for the docker node-engine tests and builds the
# `lnm-anvil:local` image without any registry (no base image can be pulled here), and, from the
# Fabric 2.5 programs found as the service and the tests find them (LNM_FABRIC_BIN, else PATH;
# config LNM_FABRIC_CFG, else ../shared/fabric/config, else <bin>/../config: test/helpers/programs.ts),
# `lnm-fabric-peer:local` and `lnm-fabric-orderer:local`, and for each Fabric release found
# (LNM_FABRIC_RELEASES, LNM_FABRIC_BIN, PATH) `lnm-fabric-peer:<version>` and
# `lnm-fabric-orderer:<version>` (e.g. :2.5.12, :3.1.5) from its programs and its own config/, from geth 1.13 (LNM_GETH_BIN, else PATH)
# `lnm-geth:local`, from the Fabric-X programs (LNM_FABRIC_X_BIN,
# else PATH) `lnm-fabric-x-arma:local` and `lnm-fabric-x-committer:local`,
# `lnm-prometheus:local` from Debian's prometheus, the reference plugin's
# `lnm-plugin-rest-gateway:local` (node and one bundled JavaScript file),
# and from this host's Node.js and node_modules the chaincode images `lnm-chaincode-node:local`
# (runs a Node.js chaincode's files under the docker engine) and `lnm-chaincode-asset-registry:local`
# (the sample chaincode as a chaincode-as-a-service image).
# Idempotent; run as root by CI. When no engine can run on this machine it prints why and
# exits 0: the docker tests then skip themselves with a printed reason.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ANVIL="${LNM_ANVIL_BIN:-$ROOT/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil}"
IMAGE="${LNM_ANVIL_IMAGE:-lnm-anvil:local}"
DOCKERD_LOG="${LNM_DOCKERD_LOG:-/var/log/lnm-dockerd.log}"
PEER_IMAGE="${LNM_FABRIC_PEER_IMAGE:-lnm-fabric-peer:local}"
ORDERER_IMAGE="${LNM_FABRIC_ORDERER_IMAGE:-lnm-fabric-orderer:local}"
PROMETHEUS_IMAGE="${LNM_PROMETHEUS_IMAGE:-lnm-prometheus:local}"
REST_GATEWAY_IMAGE="${LNM_REST_GATEWAY_IMAGE:-lnm-plugin-rest-gateway:local}"
CHAINCODE_NODE_IMAGE="${LNM_CHAINCODE_NODE_IMAGE:-lnm-chaincode-node:local}"
SAMPLE_CHAINCODE_IMAGE="${LNM_SAMPLE_CHAINCODE_IMAGE:-lnm-chaincode-asset-registry:local}"
ARMA_IMAGE="${LNM_FABRIC_X_ARMA_IMAGE:-lnm-fabric-x-arma:local}"
GETH_IMAGE="${LNM_GETH_IMAGE:-lnm-geth:local}"
COMMITTER_IMAGE="${LNM_FABRIC_X_COMMITTER_IMAGE:-lnm-fabric-x-committer:local}"

say() { echo "[docker.sh] $*"; }
give_up() { say "no Docker engine: $*"; say "docker node-engine tests will be skipped"; exit 0; }

engine_up() { docker info >/dev/null 2>&1; }

install_engine() {
  command -v dockerd >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || give_up "dockerd is not installed and this script is not root"
  command -v apt-get >/dev/null 2>&1 || give_up "dockerd is not installed and apt-get is missing"
  say "installing docker.io from Debian's packages"
  # shellcheck source=apt.sh
  . "$ROOT/.ci/apt.sh"
  apt_get update -qq || give_up "apt-get update failed"
  apt_get install -y -qq --no-install-recommends docker.io || give_up "apt-get install docker.io failed"
  command -v dockerd >/dev/null 2>&1 || give_up "docker.io installed but dockerd is not on PATH"
}

start_engine() {
  engine_up && { say "Docker engine already answers"; return 0; }
  if ! pgrep -x dockerd >/dev/null 2>&1; then
    # No bridge and no iptables: these sandboxed machines are not set up for them, and node
    # containers use the host network anyway. vfs: no overlay filesystem is needed.
    say "starting dockerd (log: $DOCKERD_LOG)"
    # containerd is started by dockerd itself when not running.
    setsid nohup dockerd --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none \
      >"$DOCKERD_LOG" 2>&1 </dev/null &
  fi
  for _ in $(seq 1 60); do
    engine_up && { say "Docker engine answers"; return 0; }
    if ! pgrep -x dockerd >/dev/null 2>&1; then
      say "dockerd exited; last lines of $DOCKERD_LOG:"
      tail -n 20 "$DOCKERD_LOG" 2>/dev/null | sed 's/^/    /'
      give_up "dockerd did not stay up"
    fi
    sleep 1
  done
  say "last lines of $DOCKERD_LOG:"
  tail -n 20 "$DOCKERD_LOG" 2>/dev/null | sed 's/^/    /'
  give_up "dockerd did not answer within 60 s"
}

# Copies into a root filesystem, at their own paths, the shared libraries ldd resolves for a
# program (ld-linux is the line without "=>"), and with --self the program itself too.
copy_with_libraries() {
  local rootfs="$1" prog="$2" self="${3:-}" lib
  if [ "$self" = --self ]; then
    mkdir -p "$rootfs$(dirname "$prog")"
    cp -L "$prog" "$rootfs$prog"
  fi
  ldd "$prog" 2>/dev/null | awk '/=> \//{print $3} /^[[:space:]]*\//{print $1}' | while read -r lib; do
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
  done
}

# True, and says so, when IMAGE already carries the recipe label SUM: nothing to rebuild. Each
# recipe's SUM covers what goes into the image and this script, so a changed recipe rebuilds it.
image_current() {
  [ "$(docker image inspect -f '{{ index .Config.Labels "lnm.image.recipe" }}' "$1" 2>/dev/null)" = "$2" ] || return 1
  say "image $1 is up to date"
}

# Imports the root filesystem directory ROOTFS as IMAGE labelled with recipe SUM; the further
# arguments are `docker import --change` instructions. Adds a root user, drops the build this one
# replaces (now untagged) and removes ROOTFS. Fails, saying nothing, when the import fails.
import_rootfs() {
  local rootfs="$1" image="$2" sum="$3" change ok=1; shift 3
  local changes=()
  for change in "$@"; do changes+=(--change "$change"); done
  mkdir -p "$rootfs/etc"
  echo 'root:x:0:0:root:/root:/bin/false' >"$rootfs/etc/passwd"
  echo 'root:x:0:' >"$rootfs/etc/group"
  if tar -C "$rootfs" -cf "$rootfs.tar" . && docker import "${changes[@]}" --change "LABEL lnm.image.recipe=$sum" "$rootfs.tar" "$image" >/dev/null; then
    docker image prune -f --filter label=lnm.image.recipe >/dev/null 2>&1
    say "built image $image"
    ok=0
  fi
  rm -rf "$rootfs" "$rootfs.tar"
  return $ok
}

# A Fabric image as Fabric's own are laid out (hyperledger/fabric-peer, -orderer): the program in
# /usr/local/bin, the release's config in /etc/hyperledger/fabric (FABRIC_CFG_PATH), no
# entrypoint and the program as the command, so the node engine's args work for both. The peer
# image also has sh, cp, mkdir and grep: the ccaas external builder the service writes into each
# peer's directory is a set of sh scripts (adapters/consortium/ccaasBuilder.ts).
build_fabric_image() {
  local image="$1" binary="$2" cmd="$3"; shift 3
  local program sum
  program="$(basename "$binary")"
  sum="$( (sha256sum "$binary" "$fabric_cfg"/core.yaml "$fabric_cfg"/orderer.yaml; sha256sum "${BASH_SOURCE[0]}") | sha256sum | cut -c1-64)"
  image_current "$image" "$sum" && return 0
  local rootfs
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc/hyperledger/fabric" "$rootfs/var/hyperledger/production" "$rootfs/tmp"
  chmod 1777 "$rootfs/tmp" "$rootfs/var/hyperledger/production"
  cp "$binary" "$rootfs/usr/local/bin/$program"
  copy_with_libraries "$rootfs" "$binary"
  cp "$fabric_cfg"/*.yaml "$rootfs/etc/hyperledger/fabric/"
  local tool
  for tool in "$@"; do
    tool="$(command -v "$tool")" || { rm -rf "$rootfs"; say "skipping $image: $tool is not on this host"; return 0; }
    copy_with_libraries "$rootfs" "$tool" --self
  done
  import_rootfs "$rootfs" "$image" "$sum" 'ENV PATH=/usr/local/bin:/usr/bin:/bin' 'ENV FABRIC_CFG_PATH=/etc/hyperledger/fabric' "CMD $cmd" 'WORKDIR /' \
    || say "docker import of $image failed; the Fabric docker tests will skip"
}

# The repository of an image reference: lnm-fabric-peer:local -> lnm-fabric-peer (a registry's
# host:port is kept: reg:5000/fabric-peer -> reg:5000/fabric-peer).
image_repository() {
  local image="${1%@*}" tag
  tag="${image##*:}"
  if [[ "$image" == *:* && "$tag" != */* ]]; then echo "${image%:*}"; else echo "$image"; fi
}

# The smoke run of a peer image: the version its peer prints.
smoke_fabric_peer() {
  local out
  if out="$(docker run --rm --network host "$1" peer version 2>&1)"; then
    say "smoke run of $1: $(echo "$out" | grep -m1 Version)"
  else
    say "smoke run of $1 failed: $out"
  fi
}

build_fabric_images() {
  local found fabric_peer='' fabric_orderer='' fabric_cfg='' fabric_missing='' fabric_releases=''
  # The one lookup of the service and the tests (it prints shell assignments).
  if ! found="$(cd "$ROOT" && node --import tsx test/helpers/programs.ts --shell 2>&1)"; then
    say "could not look up the Fabric programs: $found"
    return 0
  fi
  eval "$found"
  # One peer and one orderer image per Fabric release found (LNM_FABRIC_RELEASES, LNM_FABRIC_BIN or
  # PATH), tagged by its version and built from that release's programs and its own config/: the
  # docker engine's releases (adapters/consortium/fabricReleaseImages.ts, docs/consortium.md).
  local version bin cfg peer_repo orderer_repo
  peer_repo="$(image_repository "$PEER_IMAGE")"
  orderer_repo="$(image_repository "$ORDERER_IMAGE")"
  while read -r version bin cfg; do
    [ -n "$version" ] || continue
    say "Fabric $version: $bin; configuration $cfg"
    fabric_cfg="$cfg" build_fabric_image "$peer_repo:$version" "$bin/peer" '["peer","node","start"]' /bin/sh cp mkdir grep
    fabric_cfg="$cfg" build_fabric_image "$orderer_repo:$version" "$bin/orderer" '["orderer"]'
    smoke_fabric_peer "$peer_repo:$version"
  done <<<"$fabric_releases"
  [ -n "$fabric_releases" ] || say "no Fabric release found: no images tagged by version (LNM_FABRIC_RELEASES or LNM_FABRIC_BIN)"
  # The configured images (lnm-fabric-peer:local, lnm-fabric-orderer:local), as before: from
  # LNM_FABRIC_BIN, else PATH. Docker nodes that record no release run them.
  if [ -z "$fabric_peer" ] || [ -z "$fabric_orderer" ] || [ -z "$fabric_cfg" ]; then
    say "$PEER_IMAGE and $ORDERER_IMAGE not built, their docker tests will be skipped: ${fabric_missing:-no Fabric configuration found}"
    return 0
  fi
  say "Fabric programs: $fabric_peer, $fabric_orderer; configuration $fabric_cfg"
  build_fabric_image "$PEER_IMAGE" "$fabric_peer" '["peer","node","start"]' /bin/sh cp mkdir grep
  build_fabric_image "$ORDERER_IMAGE" "$fabric_orderer" '["orderer"]'
  smoke_fabric_peer "$PEER_IMAGE"
}

# Fabric-X images from the programs found as the service and the tests find them (LNM_FABRIC_X_BIN,
# else PATH, as .ci/run sets it: test/helpers/programs.ts): `arma` (the
# orderer's four roles) and `committer` (its five services), each in /usr/local/bin with its
# libraries (none for the static Go builds), no entrypoint and the program as the command.
build_fabric_x_image() {
  local image="$1" binary="$2" program sum rootfs
  program="$(basename "$binary")"
  sum="$( (sha256sum "$binary"; sha256sum "${BASH_SOURCE[0]}") | sha256sum | cut -c1-64)"
  image_current "$image" "$sum" && return 0
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/tmp"
  chmod 1777 "$rootfs/tmp"
  cp "$binary" "$rootfs/usr/local/bin/$program"
  copy_with_libraries "$rootfs" "$binary"
  import_rootfs "$rootfs" "$image" "$sum" 'ENV PATH=/usr/local/bin' "CMD [\"$program\"]" 'WORKDIR /' \
    || say "docker import of $image failed; the Fabric-X docker tests will skip"
}

build_fabric_x_images() {
  local found fabricx_arma='' fabricx_committer='' fabricx_missing=''
  if ! found="$(cd "$ROOT" && node --import tsx test/helpers/programs.ts --shell 2>&1)"; then
    say "could not look up the Fabric-X programs: $found"
    return 0
  fi
  eval "$found"
  # Each image from its own program: an orderer group runs without a committer (on a Kubernetes
  # cluster too: test/e2e/kubernetes/ledgerxCluster.e2e.test.ts needs the arma image only).
  if [ -n "$fabricx_arma" ]; then
    say "Fabric-X arma: $fabricx_arma"
    build_fabric_x_image "$ARMA_IMAGE" "$fabricx_arma"
  fi
  if [ -z "$fabricx_arma" ] || [ -z "$fabricx_committer" ]; then
    say "Fabric-X images not all built, their docker tests will be skipped: ${fabricx_missing:-arma or committer not found}"
    return 0
  fi
  say "Fabric-X committer: $fabricx_committer"
  build_fabric_x_image "$COMMITTER_IMAGE" "$fabricx_committer"
  local out
  if out="$(docker run --rm --network host "$COMMITTER_IMAGE" committer version 2>&1)"; then
    say "smoke run: $out"
  else
    say "smoke run of $COMMITTER_IMAGE failed: $out"
  fi
}

# geth 1.13 (Clique sealers, bootnodes and full nodes under the docker engine and on node hosts,
# adapters/evm/gethLaunch.ts) from the program found as the service and the tests find it
# (LNM_GETH_BIN, else PATH): geth in /usr/local/bin with its libraries and /bin/sh (a node's
# command runs `geth init` on its data directory, then execs geth), no entrypoint, geth as the
# command. CI has no geth: the image is then not built and the geth docker tests skip.
build_geth_image() {
  local found geth_path='' geth_missing=''
  if ! found="$(cd "$ROOT" && node --import tsx test/helpers/programs.ts --shell 2>&1)"; then
    say "could not look up geth: $found"
    return 0
  fi
  eval "$found"
  if [ -z "$geth_path" ]; then
    say "$GETH_IMAGE not built, the geth docker tests will be skipped: ${geth_missing:-geth not found}"
    return 0
  fi
  local sh sum rootfs
  sh="$(command -v sh)" || { say "no sh on this host: $GETH_IMAGE not built"; return 0; }
  sum="$( (sha256sum "$geth_path" "$(readlink -f "$sh")"; sha256sum "${BASH_SOURCE[0]}") | sha256sum | cut -c1-64)"
  image_current "$GETH_IMAGE" "$sum" && return 0
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/bin" "$rootfs/tmp"
  chmod 1777 "$rootfs/tmp"
  cp -L "$geth_path" "$rootfs/usr/local/bin/geth"
  copy_with_libraries "$rootfs" "$geth_path"
  cp -L "$sh" "$rootfs/bin/sh"
  copy_with_libraries "$rootfs" "$sh"
  import_rootfs "$rootfs" "$GETH_IMAGE" "$sum" 'ENV PATH=/usr/local/bin:/bin' 'ENV HOME=/tmp' 'CMD ["geth"]' 'WORKDIR /tmp' \
    || { say "docker import of $GETH_IMAGE failed; the geth docker tests will skip"; return 0; }
  local out
  if out="$(docker run --rm --network host "$GETH_IMAGE" geth version 2>&1)"; then
    say "smoke run: $(echo "$out" | grep -m1 '^Version')"
  else
    say "smoke run of $GETH_IMAGE failed: $out"
  fi
}

# The metrics stack's Prometheus under the docker engine: Debian's prometheus program (the one the
# process engine runs) with its libraries, as the entrypoint, like prom/prometheus.
build_prometheus_image() {
  local prog
  prog="$(command -v prometheus)" || { say "no prometheus program on this host (apt-get install prometheus): $PROMETHEUS_IMAGE not built, its docker test will skip"; return 0; }
  local sum
  sum="$( (sha256sum "$prog"; sha256sum "${BASH_SOURCE[0]}") | sha256sum | cut -c1-64)"
  image_current "$PROMETHEUS_IMAGE" "$sum" && return 0
  local rootfs
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/tmp" "$rootfs/etc"
  chmod 1777 "$rootfs/tmp"
  copy_with_libraries "$rootfs" "$prog" --self
  import_rootfs "$rootfs" "$PROMETHEUS_IMAGE" "$sum" "ENTRYPOINT [\"$prog\"]" 'WORKDIR /tmp' \
    || say "docker import of $PROMETHEUS_IMAGE failed; the metrics stack's docker test will skip"
}

# The reference plugin (plugins/available/rest-gateway.yaml): plugins/rest-gateway/gateway.ts and
# its dependencies (@hyperledger/fabric-gateway, @grpc/grpc-js, ...) bundled by esbuild into one
# file, run by this host's node, copied with its shared libraries: no base image is pulled.
build_rest_gateway_image() {
  local node esbuild source="$ROOT/plugins/rest-gateway/gateway.ts"
  node="$(command -v node)" || { say "no node on this host: $REST_GATEWAY_IMAGE not built, the reference plugin's test will skip"; return 0; }
  node="$(readlink -f "$node")"
  esbuild="$ROOT/node_modules/.bin/esbuild"
  [ -x "$esbuild" ] || { say "no esbuild in node_modules (npm install first): $REST_GATEWAY_IMAGE not built"; return 0; }
  local sum
  sum="$( (sha256sum "$node" "$source" "$ROOT/package-lock.json"; sha256sum "${BASH_SOURCE[0]}") | sha256sum | cut -c1-64)"
  image_current "$REST_GATEWAY_IMAGE" "$sum" && return 0
  local rootfs
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/app" "$rootfs/tmp" "$rootfs/etc"
  chmod 1777 "$rootfs/tmp"
  # pkcs11js (fabric-gateway's optional HSM signer, loaded only when asked for) stays out.
  if ! "$esbuild" "$source" --bundle --platform=node --target=node20 --format=cjs --external:pkcs11js \
    --log-level=warning --outfile="$rootfs/app/gateway.js"; then
    rm -rf "$rootfs"
    say "esbuild could not bundle $source: $REST_GATEWAY_IMAGE not built"
    return 0
  fi
  copy_with_libraries "$rootfs" "$node" --self
  import_rootfs "$rootfs" "$REST_GATEWAY_IMAGE" "$sum" "ENTRYPOINT [\"$node\", \"/app/gateway.js\"]" 'WORKDIR /app' \
    || say "docker import of $REST_GATEWAY_IMAGE failed; the reference plugin's test will skip"
  local out
  if out="$(docker run --rm --network host "$REST_GATEWAY_IMAGE" 2>&1)"; [ "$out" = "rest-gateway: GATEWAY_PORT is not set" ]; then
    say "smoke run of $REST_GATEWAY_IMAGE: node runs the bundle"
  else
    say "smoke run of $REST_GATEWAY_IMAGE said: $out"
  fi
}

# The image holds only the anvil binary and the shared libraries ldd resolves for it,
# assembled into a root filesystem tar and imported: nothing is pulled.
build_image() {
  [ -x "$ANVIL" ] || give_up "anvil binary not found at $ANVIL (run npm install first)"
  local sum
  # The label covers the binary and this recipe, so a changed recipe rebuilds the image.
  sum="$( (sha256sum "$ANVIL"; sha256sum "${BASH_SOURCE[0]}") | sha256sum | cut -c1-64)"
  image_current "$IMAGE" "$sum" && return 0
  local rootfs
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/tmp" "$rootfs/data" "$rootfs/etc"
  chmod 1777 "$rootfs/tmp"
  cp "$ANVIL" "$rootfs/usr/local/bin/anvil"
  copy_with_libraries "$rootfs" "$ANVIL"
  [ -d /etc/ssl/certs ] && mkdir -p "$rootfs/etc/ssl" && cp -rL /etc/ssl/certs "$rootfs/etc/ssl/" 2>/dev/null
  import_rootfs "$rootfs" "$IMAGE" "$sum" 'ENTRYPOINT ["/usr/local/bin/anvil"]' 'WORKDIR /data' \
    || give_up "docker import of $IMAGE failed"
}

# The packages a Node.js chaincode needs at run time, fabric-shim and fabric-contract-api with
# everything they require, as node_modules/<name> directories of this checkout (each copied whole,
# so a package's own nested node_modules come along).
chaincode_packages() {
  (cd "$ROOT" && node -e '
    const path = require("path"), fs = require("fs");
    const root = process.cwd(), seen = new Set();
    function visit(name, from) {
      for (let dir = from; ; dir = path.dirname(dir)) {
        const at = path.join(dir, "node_modules", name);
        if (fs.existsSync(path.join(at, "package.json"))) {
          if (seen.has(at)) return;
          seen.add(at);
          const pj = JSON.parse(fs.readFileSync(path.join(at, "package.json"), "utf8"));
          for (const d of Object.keys({ ...pj.dependencies, ...pj.optionalDependencies })) visit(d, at);
          return;
        }
        if (dir === root || path.dirname(dir) === dir) return;
      }
    }
    visit("fabric-shim", root);
    visit("fabric-contract-api", root);
    for (const p of seen) { const rel = path.relative(root, p); if (!rel.slice("node_modules/".length).includes("node_modules/")) console.log(rel); }
  ')
}

# Chaincode images: this host's node (with its libraries) as the entrypoint and the chaincode
# packages in /opt/lnm/node_modules (NODE_PATH). lnm-chaincode-node:local has no command: the
# service gives fabric-shim's server CLI and the chaincode's directory (bound from the node
# directory). The sample's image adds the sample, compiled by esbuild, and a start script that
# reads CHAINCODE_ID and CHAINCODE_SERVER_ADDRESS as Fabric's chaincode-as-a-service samples do.
build_chaincode_image() {
  local image="$1" sample="${2:-}"
  local prog packages sum
  prog="$(command -v node)" || { say "no node on this host: $image not built, the docker chaincode tests will skip"; return 0; }
  [ -x "$ROOT/node_modules/.bin/esbuild" ] && [ -d "$ROOT/node_modules/fabric-shim" ] || { say "no node_modules (run npm ci): $image not built"; return 0; }
  packages="$(chaincode_packages)" || { say "could not list the chaincode packages: $image not built"; return 0; }
  sum="$( (sha256sum "$prog"; cd "$ROOT" && for p in $packages; do cat "$p/package.json"; done | sha256sum; [ -n "$sample" ] && sha256sum "$ROOT"/samples/chaincode/asset-registry/*; sha256sum "${BASH_SOURCE[0]}") | sha256sum | cut -c1-64)"
  image_current "$image" "$sum" && return 0
  local rootfs
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/tmp" "$rootfs/etc" "$rootfs/usr/local/bin" "$rootfs/opt/lnm/node_modules"
  chmod 1777 "$rootfs/tmp"
  cp -L "$prog" "$rootfs/usr/local/bin/node"
  copy_with_libraries "$rootfs" "$prog"
  local p
  for p in $packages; do mkdir -p "$rootfs/opt/lnm/$(dirname "$p")" && cp -rL "$ROOT/$p" "$rootfs/opt/lnm/$p"; done
  local cmd=()
  if [ -n "$sample" ]; then
    mkdir -p "$rootfs/opt/chaincode"
    "$ROOT/node_modules/.bin/esbuild" "$ROOT/samples/chaincode/asset-registry/assetRegistry.ts" --format=cjs --platform=node --target=node20 \
      --outfile="$rootfs/opt/chaincode/assetRegistry.js" --log-level=warning || { rm -rf "$rootfs"; say "esbuild failed: $image not built"; return 0; }
    cp "$ROOT/samples/chaincode/asset-registry/package.json" "$rootfs/opt/chaincode/package.json"
    cat >"$rootfs/opt/chaincode/start.js" <<'JS'
// Chaincode as a service: the package id and listen address come from the environment.
const missing = ['CHAINCODE_ID', 'CHAINCODE_SERVER_ADDRESS'].filter((v) => !process.env[v]);
if (missing.length) { console.error(`set ${missing.join(' and ')}`); process.exit(2); }
process.argv.push('server', '--chaincode-address', process.env.CHAINCODE_SERVER_ADDRESS, '--chaincode-id', process.env.CHAINCODE_ID, '--module-path', '/opt/chaincode');
require('fabric-shim/cli.js');
JS
    cmd=('CMD ["/opt/chaincode/start.js"]')
  fi
  import_rootfs "$rootfs" "$image" "$sum" 'ENTRYPOINT ["/usr/local/bin/node"]' "${cmd[@]}" 'ENV NODE_PATH=/opt/lnm/node_modules' 'WORKDIR /tmp' \
    || say "docker import of $image failed; the docker chaincode tests will skip"
}

# Sourced (deploy/image.sh uses the helpers above): define only, build nothing.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

install_engine
start_engine
build_image
# A smoke run proves containers can start at all (cgroups, namespaces); a failure here is
# reported and skipped rather than failed, like an absent engine.
if out="$(docker run --rm --network host "$IMAGE" --version 2>&1)"; then
  say "smoke run: $out"
else
  say "smoke run failed: $out"
  give_up "containers cannot run on this machine"
fi
build_fabric_images
build_fabric_x_images
build_geth_image
build_prometheus_image
build_rest_gateway_image
build_chaincode_image "$CHAINCODE_NODE_IMAGE"
build_chaincode_image "$SAMPLE_CHAINCODE_IMAGE" sample
