#!/usr/bin/env bash
# Builds the image of the service itself (deploy/service.yaml runs it), FROM scratch, without any
# registry: this host's node with the shared libraries it needs, the built server (dist/, made
# by bin/compile.ts) and console (web/dist), the migrations, the shipped plugin descriptions and
# the production node_modules (`npm ls --omit=dev`). Nothing is pulled.
#   deploy/image.sh            build LNM_SERVICE_IMAGE (default ledger-network-manager:local)
#   deploy/image.sh --import   and load it into the test cluster's containerd (test/k8s/cluster.sh import)
# Idempotent: the image carries a label hashing what went into it and is rebuilt only when that
# changed. Needs a Docker Engine (.ci/docker.sh starts one) and `npm ci` done in this checkout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The helpers of .ci/docker.sh (copy_with_libraries, image_current, import_rootfs, say): one way
# of building an image from this host's programs.
# shellcheck source=../.ci/docker.sh
. "$ROOT/.ci/docker.sh"
IMAGE="${LNM_SERVICE_IMAGE:-ledger-network-manager:local}"

docker info >/dev/null 2>&1 || { say "no Docker Engine answers (.ci/docker.sh starts one): $IMAGE not built"; exit 1; }
node="$(readlink -f "$(command -v node)")" || { say "no node on this host: $IMAGE not built"; exit 1; }
[ -d "$ROOT/node_modules/koa" ] || { say "no node_modules in $ROOT (npm ci first): $IMAGE not built"; exit 1; }

cd "$ROOT"
# The server bundle and the console, rebuilt only when their sources changed.
node --import tsx bin/compile.ts
node --import tsx web/scripts/build.ts

# The production packages, each top-level directory copied whole (nested node_modules come along).
# A checkout whose node_modules is a link to another's (a git worktree) gets that one's real paths,
# and npm ls exits non-zero there (it calls them extraneous): what it lists is used all the same
# (the smoke run below loads every package).
modules="$(readlink -f "$ROOT/node_modules")"
packages="$( (npm ls --omit=dev --all --parseable 2>/dev/null || true) | sed "s#^$modules/#node_modules/#; s#^$ROOT/##" | grep '^node_modules/' | grep -v 'node_modules/.*node_modules/' | sort -u)"
[ -n "$packages" ] || { say "npm ls found no production packages: $IMAGE not built"; exit 1; }

sum="$( (sha256sum "$node" dist/lnm.mjs package.json package-lock.json; find web/dist migrations plugins/available -type f -print0 | sort -z | xargs -0 sha256sum; echo "$packages"; sha256sum "${BASH_SOURCE[0]}") | sha256sum | cut -c1-64)"
if ! image_current "$IMAGE" "$sum"; then
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/app/dist" "$rootfs/app/web" "$rootfs/app/plugins" "$rootfs/app/node_modules" "$rootfs/usr/local/bin" "$rootfs/tmp" "$rootfs/data" "$rootfs/etc"
  chmod 1777 "$rootfs/tmp" "$rootfs/data"
  cp -L "$node" "$rootfs/usr/local/bin/node"
  copy_with_libraries "$rootfs" "$node"
  cp package.json "$rootfs/app/"
  cp dist/lnm.mjs dist/lnm.mjs.map "$rootfs/app/dist/"
  cp -r web/dist "$rootfs/app/web/dist"
  cp -r migrations "$rootfs/app/migrations"
  cp -r plugins/available "$rootfs/app/plugins/available"
  for p in $packages; do mkdir -p "$rootfs/app/$(dirname "$p")" && cp -rL "$p" "$rootfs/app/$p"; done
  # The native addons' own libraries (librt for the KurrentDB bridge, ...); those ldd cannot read
  # (the bridge's musl build) are never loaded on this glibc system.
  while read -r addon; do ! ldd "$addon" >/dev/null 2>&1 || copy_with_libraries "$rootfs" "$addon"; done < <(find "$rootfs/app/node_modules" -name '*.node' -type f)
  # Outgoing TLS (webhooks, S3, OIDC, a cluster's API server) verifies against this host's CAs.
  [ -d /etc/ssl/certs ] && mkdir -p "$rootfs/etc/ssl" && cp -rL /etc/ssl/certs "$rootfs/etc/ssl/" 2>/dev/null
  import_rootfs "$rootfs" "$IMAGE" "$sum" 'ENTRYPOINT ["/usr/local/bin/node", "/app/dist/lnm.mjs"]' 'CMD ["serve"]' \
    'ENV NODE_ENV=production' 'ENV HOST=0.0.0.0' 'ENV DATA_DIR=/data' 'ENV PATH=/usr/local/bin' 'EXPOSE 8100' 'WORKDIR /app' \
    || { say "docker import of $IMAGE failed"; exit 1; }
fi

# A smoke run: node loads the bundle and every package it imports (`lnm help`, no database needed).
if out="$(docker run --rm --network none "$IMAGE" help 2>&1)" && [ "${out%%:*}" = Usage ]; then
  say "smoke run of $IMAGE: node loads the server and its packages"
else
  say "smoke run of $IMAGE failed: $out"
  exit 1
fi

if [ "${1:-}" = --import ]; then
  bash "$ROOT/test/k8s/cluster.sh" import "$IMAGE" >/dev/null
  say "imported $IMAGE into the test cluster's containerd"
fi
