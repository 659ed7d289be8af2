// The peer's external builder for chaincode run as a service ("ccaas"), written into each peer's
// node directory: Fabric 2.5 refuses to start a peer that has neither a Docker endpoint nor an
// external builder, and this service gives it no Docker (chaincode runs as a service instead).
//
//   ccaasBuilderFiles()        -> NodeFile[] builders/ccaas/bin/{detect,build,release} (0755)
//   ccaasBuilder(nodeDir)      -> the chaincode.externalBuilders entry that names them
//
// The three programs follow Fabric's external builder contract and do what Fabric's own ccaas
// builder does for a package whose metadata.json says type "ccaas": detect accepts it, build
// copies connection.json (and META-INF indexes), release puts connection.json where the peer
// looks for a chaincode server (release/chaincode/server/connection.json). POSIX sh, cp, mkdir
// and grep only, so they run on the host and in the local images (.ci/docker.sh).
import path from 'node:path';
import type { NodeFile } from '../../domain/nodes/nodeEngine.ts';
import type { ExternalBuilder } from './externalBuilder.ts';

export const CCAAS_BUILDER_DIR = 'builders/ccaas';

const detect = `#!/bin/sh
# detect CHAINCODE_SOURCE_DIR CHAINCODE_METADATA_DIR: exit 0 for a package of type ccaas.
grep -Eiq '"type"[[:space:]]*:[[:space:]]*"ccaas"' "$2/metadata.json"
`;

const build = `#!/bin/sh
# build CHAINCODE_SOURCE_DIR CHAINCODE_METADATA_DIR BUILD_OUTPUT_DIR
set -e
if [ ! -f "$1/connection.json" ]; then echo "ccaas build: no connection.json in the chaincode package" >&2; exit 1; fi
cp "$1/connection.json" "$3/connection.json"
if [ -d "$1/META-INF" ]; then cp -R "$1/META-INF" "$3/META-INF"; fi
`;

const release = `#!/bin/sh
# release BUILD_OUTPUT_DIR RELEASE_OUTPUT_DIR
set -e
if [ -d "$1/META-INF/statedb" ]; then mkdir -p "$2/statedb" && cp -R "$1/META-INF/statedb/." "$2/statedb/"; fi
mkdir -p "$2/chaincode/server"
cp "$1/connection.json" "$2/chaincode/server/connection.json"
`;

export function ccaasBuilderFiles(): NodeFile[] {
  return [
    { path: `${CCAAS_BUILDER_DIR}/bin/detect`, content: detect, mode: 0o755 },
    { path: `${CCAAS_BUILDER_DIR}/bin/build`, content: build, mode: 0o755 },
    { path: `${CCAAS_BUILDER_DIR}/bin/release`, content: release, mode: 0o755 },
  ];
}

export function ccaasBuilder(nodeDir: string): ExternalBuilder {
  return { name: 'ccaas', path: path.join(nodeDir, CCAAS_BUILDER_DIR), propagateEnvironment: ['CHAINCODE_AS_A_SERVICE_BUILDER_CONFIG'] };
}
