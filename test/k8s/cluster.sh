#!/usr/bin/env bash
# A single-node Kubernetes 1.20.2 cluster for the kubernetes node-engine tests (issue 39), from
# Debian bookworm's own `kubernetes` source package and Debian's etcd-server, containerd, runc and
# containernetworking-plugins. No registry is needed: the sandbox (pause) image is built static
# from the source package's build/pause/linux/pause.c and imported into containerd.
#
#   cluster.sh build    apt-get source kubernetes and build the five server programs (~20 min),
#                       unless a build is found (LNM_K8S_BIN, LNM_K8S_SRC/_output/..., or
#                       /work/build/k8s/*/_output/local/bin/linux/amd64). CI runs it only when
#                       LNM_K8S_BUILD=1; without it the kubernetes tests skip, saying why.
#   cluster.sh source   only the apt-get source step of build (a deb-src line for bookworm is
#                       added for it, and removed after, when the machine has none)
#   cluster.sh up       etcd, containerd, bridge, CNI, apiserver, controller-manager, scheduler,
#                       kubelet, kube-proxy; waits for the node to be Ready; then writes to the
#                       state dir: admin.kubeconfig, test.env (namespace, token, CA, server URL)
#   cluster.sh down     stops everything, removes the bridge, and restores the sysctls and the
#                       iptables rules (KUBE-*/CNI-* chains) the cluster changed
#   cluster.sh status   what runs, and the node's Ready condition
#   cluster.sh import <image>   docker save <image> | ctr -n k8s.io images import -
#   cluster.sh recycle  wipes the Released hostPath volumes and makes them Available again
#
# State dir: LNM_K8S_STATE (default /tmp/lnm-k8s). Run as root. The tests find the cluster
# through LNM_TEST_K8S_KUBECONFIG or <state>/test.env (test/helpers/kubernetes.ts).
set -euo pipefail

STATE="${LNM_K8S_STATE:-/tmp/lnm-k8s}"
BRIDGE="${LNM_K8S_BRIDGE:-lnmk8s0}"
NODE_IP="${LNM_K8S_NODE_IP:-10.213.0.1}"
POD_CIDR="${LNM_K8S_POD_CIDR:-10.213.0.0/24}"
SERVICE_CIDR="${LNM_K8S_SERVICE_CIDR:-10.214.0.0/24}"
SERVICE_IP="${SERVICE_CIDR%.*}.1"
API_PORT="${LNM_K8S_API_PORT:-6443}"
ETCD_PORT="${LNM_K8S_ETCD_PORT:-2479}"
NODE_NAME="${LNM_K8S_NODE_NAME:-lnm-k8s-node}"
NAMESPACE="${LNM_K8S_TEST_NAMESPACE:-lnm-test}"
PV_COUNT="${LNM_K8S_PV_COUNT:-24}"
STORAGE_CLASS="${LNM_K8S_STORAGE_CLASS:-lnm-local}"
PAUSE_IMAGE="docker.io/library/lnm-k8s-pause:3.4.1"
CTR_SOCK="$STATE/containerd/containerd.sock"
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.conf.all.route_localnet net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables net.ipv4.ip_forward"

say() { echo "[k8s] $*"; }
die() { echo "[k8s] $*" >&2; exit 1; }

find_bin() {
  local c
  for c in "${LNM_K8S_BIN:-}" "${LNM_K8S_SRC:+$LNM_K8S_SRC/_output/local/bin/linux/amd64}" \
    /work/build/k8s/*/_output/local/bin/linux/amd64 "$STATE/src"/*/_output/local/bin/linux/amd64; do
    [ -n "$c" ] && [ -x "$c/kube-apiserver" ] && [ -x "$c/kubelet" ] && [ -x "$c/kube-proxy" ] \
      && [ -x "$c/kube-scheduler" ] && [ -x "$c/kube-controller-manager" ] && { echo "$c"; return 0; }
  done
  return 1
}

source_dir() {
  local d
  for d in "${LNM_K8S_SRC:-}" /work/build/k8s/kubernetes-* "$STATE/src"/kubernetes-*; do
    [ -n "$d" ] && [ -f "$d/build/pause/linux/pause.c" ] && { echo "$d"; return 0; }
  done
  return 1
}

# Debian's kubernetes source package into $STATE/src. A fresh Debian machine often has no deb-src
# line (only binary packages are configured): then one is added for bookworm from the same mirror
# as the machine's deb line, only while `apt-get source` runs, and removed after (the package
# lists it brought stay until the next `apt-get update`).
DEB_SRC_FILE=/etc/apt/sources.list.d/lnm-kubernetes-source.sources
# apt_get (.ci/apt.sh: waits for another apt's lock) for `build` and `source`, which need root.
use_apt() {
  [ "$(id -u)" = 0 ] || die "$1 needs root (apt-get)"
  # shellcheck source=../../.ci/apt.sh
  . "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.ci/apt.sh"
}
fetch_source() {
  mkdir -p "$STATE/src"
  if ls -d "$STATE/src"/kubernetes-*/ >/dev/null 2>&1; then say "reusing the source in $STATE/src"; return 0; fi
  if grep -qsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; then
    (cd "$STATE/src" && apt-get source kubernetes) || die "apt-get source kubernetes failed"
    return 0
  fi
  local mirror
  mirror="$(grep -hsE '^[[:space:]]*URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -m1 -E '/debian/?$' || true)"
  [ -n "$mirror" ] || mirror="$(grep -hsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list | awk '{print $2}' | grep -m1 -E '/debian/?$' || true)"
  mirror="${mirror:-http://deb.debian.org/debian}"
  say "no deb-src line is configured: adding $DEB_SRC_FILE (bookworm from $mirror) for the download"
  printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror" > "$DEB_SRC_FILE"
  local ok=0
  apt_get update && (cd "$STATE/src" && apt-get source kubernetes) && ok=1
  rm -f "$DEB_SRC_FILE"
  [ $ok = 1 ] || die "apt-get source kubernetes failed (with the deb-src line $DEB_SRC_FILE added for it, removed again)"
}

cmd_build() {
  if b="$(find_bin)"; then say "reusing the build in $b"; return 0; fi
  use_apt build
  apt_get install -y -qq --no-install-recommends dpkg-dev golang-go rsync make gcc libc6-dev \
    golang-github-modern-go-reflect2-dev
  fetch_source
  local src; src="$(ls -d "$STATE/src"/kubernetes-*/ | head -1)"; src="${src%/}"
  # Debian's Go 1.19 in GOPATH mode: the package vendors its dependencies.
  (
    cd "$src"
    export GOPATH="$PWD/.go" GO111MODULE=off CGO_ENABLED=0 GOFLAGS= HOME=/tmp
    # The vendored reflect2 1.0.1 crashes under Go >= 1.18 (SIGSEGV in mapiterinit, first seen as
    # kube-apiserver dying at its first watch-cache encode): use Debian's reflect2 1.0.2 instead.
    r=/usr/share/gocode/src/github.com/modern-go/reflect2
    [ -f "$r/go_above_118.go" ] || { echo "[k8s] $r (reflect2 >= 1.0.2) is missing" >&2; exit 1; }
    rm -f vendor/github.com/modern-go/reflect2/*.go vendor/github.com/modern-go/reflect2/*.s
    cp "$r"/*.go "$r"/*.s vendor/github.com/modern-go/reflect2/
    rm -f vendor/github.com/modern-go/reflect2/*_test.go
    mkdir -p .go/src/k8s.io
    [ -L .go/src/k8s.io/kubernetes ] || ln -s ../../.. .go/src/k8s.io/kubernetes
    cd .go/src/k8s.io/kubernetes
    nice -n 19 make gen_openapi
    nice -n 19 make WHAT="cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler cmd/kubelet cmd/kube-proxy"
  )
  find_bin >/dev/null || die "the build finished without the five programs"
  say "built in $(find_bin)"
}

# ---------- up ----------

pki() {
  local d="$STATE/pki"
  [ -f "$d/ca.crt" ] && return 0
  mkdir -p "$d"; cd "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj "/CN=lnm-k8s-ca" 2>/dev/null
  cert() { # name CN O [sans]
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2${3:+/O=$3}" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n%s\n' \
      "${4:+subjectAltName=$4}" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 30 -extfile "$1.ext" 2>/dev/null
  }
  cert apiserver kube-apiserver "" "IP:$NODE_IP,IP:$SERVICE_IP,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:localhost"
  cert admin admin system:masters
  cert kubelet "system:node:$NODE_NAME" system:nodes "IP:$NODE_IP,DNS:$NODE_NAME"
  cert kubelet-client kube-apiserver-kubelet-client system:masters
  cert controller-manager system:kube-controller-manager ""
  cert scheduler system:kube-scheduler ""
  cert proxy system:kube-proxy ""
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  cd - >/dev/null
}

kubeconfig() { # name -> $STATE/<name>.kubeconfig
  local d="$STATE/pki"
  cat > "$STATE/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: lnm-k8s
  cluster:
    server: https://$NODE_IP:$API_PORT
    certificate-authority-data: $(base64 -w0 "$d/ca.crt")
users:
- name: $1
  user:
    client-certificate-data: $(base64 -w0 "$d/$1.crt")
    client-key-data: $(base64 -w0 "$d/$1.key")
contexts:
- name: lnm-k8s
  context: {cluster: lnm-k8s, user: $1}
current-context: lnm-k8s
EOF
}

start() { # name cmd... (pid in $STATE/run/<name>.pid, log in $STATE/log/<name>.log)
  local name="$1"; shift
  if [ -f "$STATE/run/$name.pid" ] && kill -0 "$(cat "$STATE/run/$name.pid")" 2>/dev/null; then
    say "$name already runs"; return 0
  fi
  setsid nohup "$@" >"$STATE/log/$name.log" 2>&1 </dev/null &
  echo $! > "$STATE/run/$name.pid"
}

wait_for() { # description seconds command...
  local what="$1" n="$2"; shift 2
  for _ in $(seq 1 "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  die "$what did not come up in ${n} s; logs: $STATE/log"
}

api() { # method path [json]
  curl -sS --fail-with-body --cacert "$STATE/pki/ca.crt" --cert "$STATE/pki/admin.crt" --key "$STATE/pki/admin.key" \
    -X "$1" -H 'Content-Type: application/json' ${3:+--data "$3"} "https://$NODE_IP:$API_PORT$2"
}

create() { # path json (a 409 AlreadyExists is fine)
  local out
  out="$(api POST "$1" "$2" 2>&1)" || { printf '%s' "$out" | grep -q AlreadyExists || die "POST $1: $out"; }
}

pause_image() {
  ctr -a "$CTR_SOCK" -n k8s.io images ls -q | grep -qx "$PAUSE_IMAGE" && return 0
  local src; src="$(source_dir)" || die "no kubernetes source with build/pause/linux/pause.c (run: $0 build)"
  command -v docker >/dev/null && docker info >/dev/null 2>&1 \
    || die "building the pause image needs a Docker engine (.ci/docker.sh)"
  local d="$STATE/pause"; mkdir -p "$d"
  gcc -Os -static -DVERSION=v3.4.1-lnm -o "$d/pause" "$src/build/pause/linux/pause.c"
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' > "$d/Dockerfile"
  docker build -q -t "${PAUSE_IMAGE#docker.io/library/}" "$d" >/dev/null
  docker save "${PAUSE_IMAGE#docker.io/library/}" | ctr -a "$CTR_SOCK" -n k8s.io images import --snapshotter native -
}

cmd_import() {
  [ -n "${1:-}" ] || die "usage: $0 import <docker image>"
  docker save "$1" | ctr -a "$CTR_SOCK" -n k8s.io images import --snapshotter native -
}

cmd_up() {
  [ "$(id -u)" = 0 ] || die "up needs root"
  local t0; t0=$(date +%s)
  BIN="$(find_bin)" || die "no Kubernetes server programs (set LNM_K8S_BIN, or run: $0 build)"
  command -v etcd >/dev/null || die "etcd is missing (apt-get install etcd-server)"
  command -v containerd >/dev/null && command -v runc >/dev/null || die "containerd/runc missing"
  [ -x /usr/lib/cni/bridge ] || die "CNI plugins missing (apt-get install containernetworking-plugins)"
  mkdir -p "$STATE"/{run,log,cni/net.d,containerd,kubelet,pv,etcd}
  # What the cluster changes, saved once so that down can put it back.
  if [ ! -f "$STATE/sysctl.saved" ]; then
    modprobe br_netfilter 2>/dev/null || true
    for s in $SYSCTLS; do v="$(sysctl -n "$s" 2>/dev/null)" && echo "$s=$v"; done > "$STATE/sysctl.saved"
  fi
  sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 2>/dev/null || true
  pki
  for c in admin controller-manager scheduler kubelet proxy; do kubeconfig $c; done

  # A bridge with the node's address: kubelet refuses a loopback node IP. Pods sit on it (CNI),
  # with a default route through it: without one a pod reaches only the pod subnet, and a
  # Service's cluster IP (kube-proxy's DNAT on the node) is "network is unreachable" from pods.
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$NODE_IP/${POD_CIDR#*/}" dev "$BRIDGE"
    ip link set "$BRIDGE" up
  fi
  cat > "$STATE/cni/net.d/10-lnm.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "lnm-k8s", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR", "rangeStart": "${POD_CIDR%.*}.10", "gateway": "$NODE_IP"}]],
            "routes": [{"dst": "0.0.0.0/0"}], "dataDir": "$STATE/cni/ipam"}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
EOF

  start etcd etcd --name lnm-k8s --data-dir "$STATE/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "lnm-k8s=http://127.0.0.1:$((ETCD_PORT + 1))"

  # Its own containerd (not Docker's). runc needs restrict_oom_score_adj here; native snapshotter
  # (no overlay mounts needed).
  cat > "$STATE/containerd/config.toml" <<EOF
version = 2
root = "$STATE/containerd/root"
state = "$STATE/containerd/state"
[grpc]
  address = "$CTR_SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
EOF
  start containerd containerd --config "$STATE/containerd/config.toml"
  wait_for containerd 30 ctr -a "$CTR_SOCK" version
  pause_image

  wait_for etcd 30 curl -sf "http://127.0.0.1:$ETCD_PORT/health"
  local P="$STATE/pki"
  start kube-apiserver "$BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --advertise-address="$NODE_IP" --bind-address=0.0.0.0 --secure-port="$API_PORT" \
    --service-cluster-ip-range="$SERVICE_CIDR" --service-node-port-range=30000-32767 \
    --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --client-ca-file="$P/ca.crt" \
    --kubelet-client-certificate="$P/kubelet-client.crt" --kubelet-client-key="$P/kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP \
    --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --authorization-mode=Node,RBAC --allow-privileged=true --enable-admission-plugins=NodeRestriction
  wait_for kube-apiserver 90 api GET /readyz

  start kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig="$STATE/controller-manager.kubeconfig" \
    --service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" --leader-elect=false \
    --use-service-account-credentials=true --port=0 --bind-address=127.0.0.1
  start kube-scheduler "$BIN/kube-scheduler" --kubeconfig="$STATE/scheduler.kubeconfig" --leader-elect=false \
    --port=0 --bind-address=127.0.0.1

  cat > "$STATE/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $P/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $P/kubelet.crt
tlsPrivateKeyFile: $P/kubelet.key
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
resolvConf: /etc/resolv.conf
healthzBindAddress: 127.0.0.1
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
EOF
  start kubelet "$BIN/kubelet" --config="$STATE/kubelet/config.yaml" --kubeconfig="$STATE/kubelet.kubeconfig" \
    --container-runtime=remote --container-runtime-endpoint="unix://$CTR_SOCK" \
    --node-ip="$NODE_IP" --hostname-override="$NODE_NAME" --root-dir="$STATE/kubelet/root" --v=1
  start kube-proxy "$BIN/kube-proxy" --kubeconfig="$STATE/proxy.kubeconfig" --hostname-override="$NODE_NAME" \
    --cluster-cidr="$POD_CIDR" --proxy-mode=iptables --conntrack-max-per-core=0 \
    --conntrack-tcp-timeout-established=0 --conntrack-tcp-timeout-close-wait=0 \
    --bind-address="$NODE_IP" --healthz-bind-address=127.0.0.1:10256 --metrics-bind-address=127.0.0.1:10249

  node_ready() { api GET "/api/v1/nodes/$NODE_NAME" | jq -e '.status.conditions[] | select(.type=="Ready") | .status=="True"' | grep -q true; }
  wait_for "node $NODE_NAME Ready" 120 node_ready
  say "node Ready $(( $(date +%s) - t0 )) s after start"
  objects
  say "up in $(( $(date +%s) - t0 )) s; resident memory of the cluster's programs: $(rss) MB"
}

# The objects the tests use: a storage class, hostPath PVs made ahead (no dynamic provisioner),
# a namespace, a service account with a Role the engine needs, its token.
objects() {
  create /apis/storage.k8s.io/v1/storageclasses "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"$STORAGE_CLASS\"},\"provisioner\":\"kubernetes.io/no-provisioner\",\"reclaimPolicy\":\"Retain\",\"volumeBindingMode\":\"WaitForFirstConsumer\"}"
  for i in $(seq 1 "$PV_COUNT"); do
    mkdir -p "$STATE/pv/pv$i"; chmod 777 "$STATE/pv/pv$i"
    create /api/v1/persistentvolumes "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"lnm-pv$i\"},\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},\"accessModes\":[\"ReadWriteOnce\"],\"persistentVolumeReclaimPolicy\":\"Retain\",\"storageClassName\":\"$STORAGE_CLASS\",\"hostPath\":{\"path\":\"$STATE/pv/pv$i\",\"type\":\"DirectoryOrCreate\"}}}"
  done
  create /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$NAMESPACE\"}}"
  create "/api/v1/namespaces/$NAMESPACE/serviceaccounts" '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"lnm-engine"}}'
  local here; here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  # The Role of docs/kubernetes.md (the engine's least RBAC), as JSON.
  create "/apis/rbac.authorization.k8s.io/v1/namespaces/$NAMESPACE/roles" "$(sed 's/^#.*//' "$here/engine-role.json")"
  # A cluster made before the Role grew (pods/exec for the claim copies) gets the current one.
  api PUT "/apis/rbac.authorization.k8s.io/v1/namespaces/$NAMESPACE/roles/lnm-engine" "$(sed 's/^#.*//' "$here/engine-role.json")" >/dev/null
  create "/apis/rbac.authorization.k8s.io/v1/namespaces/$NAMESPACE/rolebindings" "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":\"lnm-engine\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"lnm-engine\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"lnm-engine\",\"namespace\":\"$NAMESPACE\"}]}"
  # Cluster-wide reads the engine's health check makes (nodes, storage classes).
  create /apis/rbac.authorization.k8s.io/v1/clusterroles "$(sed 's/^#.*//' "$here/engine-clusterrole.json")"
  create /apis/rbac.authorization.k8s.io/v1/clusterrolebindings "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"lnm-engine-$NAMESPACE\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"lnm-engine-read\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"lnm-engine\",\"namespace\":\"$NAMESPACE\"}]}"
  # A service account without the Role, for the permission test.
  create "/api/v1/namespaces/$NAMESPACE/serviceaccounts" '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"lnm-nobody"}}'
  token() { # 1.20 still makes a token Secret per service account
    local sa="$1" t=""
    for _ in $(seq 1 30); do
      t="$(api GET "/api/v1/namespaces/$NAMESPACE/secrets" | jq -r --arg sa "$sa" '.items[] | select(.type=="kubernetes.io/service-account-token" and .metadata.annotations["kubernetes.io/service-account.name"]==$sa) | .data.token' | head -1)"
      [ -n "$t" ] && { echo "$t" | base64 -d; return 0; }
      sleep 1
    done
    die "no token for service account $sa"
  }
  cmd_recycle
  local tok nob; tok="$(token lnm-engine)"; nob="$(token lnm-nobody)"
  umask 077
  cat > "$STATE/test.env" <<EOF
LNM_TEST_K8S_SERVER=https://$NODE_IP:$API_PORT
LNM_TEST_K8S_CA_FILE=$STATE/pki/ca.crt
LNM_TEST_K8S_TOKEN=$tok
LNM_TEST_K8S_TOKEN_NO_ROLE=$nob
LNM_TEST_K8S_NAMESPACE=$NAMESPACE
LNM_TEST_K8S_STORAGE_CLASS=$STORAGE_CLASS
LNM_TEST_K8S_NODE_ADDRESS=$NODE_IP
LNM_TEST_K8S_KUBECONFIG=$STATE/admin.kubeconfig
LNM_TEST_K8S_CTR_SOCK=$CTR_SOCK
EOF
  # The images the tests run, loaded into the cluster's containerd (imagePullPolicy Never).
  for img in ${LNM_K8S_IMAGES:-lnm-anvil:local lnm-besu-standin:local}; do
    if docker image inspect "$img" >/dev/null 2>&1; then cmd_import "$img" >/dev/null && say "imported $img"
    else say "image $img not in Docker (run .ci/docker.sh first): tests that need it will skip"; fi
  done
  say "test settings in $STATE/test.env (namespace $NAMESPACE, $PV_COUNT PVs of class $STORAGE_CLASS)"
}

rss() {
  local total=0 f p
  for f in "$STATE"/run/*.pid; do
    [ -f "$f" ] || continue
    p="$(cat "$f")"
    kill -0 "$p" 2>/dev/null || continue
    total=$(( total + $(awk '/VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0) ))
  done
  echo $(( total / 1024 ))
}

# ---------- down ----------

cmd_down() {
  [ "$(id -u)" = 0 ] || die "down needs root"
  # Pods first (while kubelet and containerd still run): their network namespaces and IPs.
  if [ -S "$CTR_SOCK" ] && command -v crictl >/dev/null; then :; fi
  local n
  for n in kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver; do stop "$n"; done
  # The pods' containers and sandboxes (shims are children of containerd's process group? no:
  # they re-parent), then containerd and etcd.
  if [ -S "$CTR_SOCK" ]; then
    for t in $(ctr -a "$CTR_SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr -a "$CTR_SOCK" -n k8s.io tasks kill -s KILL "$t" >/dev/null 2>&1 || true
    done
    sleep 1
    for t in $(ctr -a "$CTR_SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr -a "$CTR_SOCK" -n k8s.io tasks delete -f "$t" >/dev/null 2>&1 || true
    done
  fi
  stop containerd
  # The shims of this containerd (their command line names its state dir's socket).
  for p in $(pgrep -f "containerd-shim-runc-v2 -namespace k8s.io .*-address $CTR_SOCK" || true); do
    kill -9 "$p" 2>/dev/null || true
  done
  stop etcd
  # Mounts kubelet and containerd left (secrets, configmaps, the pods' /dev/shm, netns).
  grep -o " $STATE/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  ip netns list 2>/dev/null | awk '/^cni-/ {print $1}' | while read -r ns; do ip netns del "$ns" 2>/dev/null || true; done
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link del "$BRIDGE"
  # iptables: drop the chains and rules kube-proxy and the CNI plugins added (KUBE-*, CNI-*),
  # leave everything else as it is.
  for ipt in iptables ip6tables; do
    command -v "$ipt-save" >/dev/null || continue
    if "$ipt-save" | grep -qE 'KUBE-|CNI-'; then
      "$ipt-save" | grep -vE 'KUBE-|CNI-' | "$ipt-restore" || say "$ipt-restore failed"
    fi
  done
  if [ -f "$STATE/sysctl.saved" ]; then
    while IFS= read -r kv; do sysctl -qw "$kv" 2>/dev/null || true; done < "$STATE/sysctl.saved"
    rm -f "$STATE/sysctl.saved"
  fi
  say "down (state kept in $STATE; rm -rf it to start from nothing)"
}

stop() {
  local f="$STATE/run/$1.pid" p
  [ -f "$f" ] || return 0
  p="$(cat "$f")"
  if kill -0 "$p" 2>/dev/null; then
    kill "$p" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$p" 2>/dev/null || true
  fi
  rm -f "$f"
}

# hostPath PVs are Retain (no recycler image here): a Released one (its claim deleted) is wiped and
# made Available again, so repeated test runs do not use the pool up.
cmd_recycle() {
  local pv path n=0
  for pv in $(api GET /api/v1/persistentvolumes | jq -r '.items[] | select(.status.phase=="Released") | .metadata.name'); do
    path="$(api GET "/api/v1/persistentvolumes/$pv" | jq -r .spec.hostPath.path)"
    case "$path" in "$STATE"/pv/*) find "$path" -mindepth 1 -delete ;; *) continue ;; esac
    curl -sS --fail-with-body --cacert "$STATE/pki/ca.crt" --cert "$STATE/pki/admin.crt" --key "$STATE/pki/admin.key" \
        -X PATCH -H 'Content-Type: application/json-patch+json' --data '[{"op":"remove","path":"/spec/claimRef"}]' \
        "https://$NODE_IP:$API_PORT/api/v1/persistentvolumes/$pv" >/dev/null
    n=$((n + 1))
  done
  say "$n released volumes made available again"
}

cmd_status() {
  local f p any=0
  for f in "$STATE"/run/*.pid; do
    [ -f "$f" ] || continue
    p="$(cat "$f")"
    if kill -0 "$p" 2>/dev/null; then echo "$(basename "$f" .pid): running (pid $p)"; any=1
    else echo "$(basename "$f" .pid): dead (pid $p)"; fi
  done
  [ $any = 1 ] || { echo "not running"; return 3; }
  echo "resident memory: $(rss) MB"
  api GET /api/v1/persistentvolumes 2>/dev/null | jq -r '[.items[].status.phase] | group_by(.) | map("\(.[0]) \(length)") | "volumes: " + join(", ")' || true
  api GET "/api/v1/nodes/$NODE_NAME" 2>/dev/null | jq -r '"node \(.metadata.name) Ready=" + (.status.conditions[] | select(.type=="Ready") | .status)' || echo "API server not answering"
}

case "${1:-}" in
  build) cmd_build ;;
  source) use_apt source; apt_get install -y -qq --no-install-recommends dpkg-dev; fetch_source ;;
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  recycle) cmd_recycle ;;
  import) shift; cmd_import "$@" ;;
  *) echo "usage: $0 build|source|up|down|status|recycle|import <image>" >&2; exit 2 ;;
esac
