// A peer's external chaincode builder as core.yaml names it: shared by the peer's launch
// settings (peerLaunch.ts) and the builders that provide one (ccaasBuilder.ts).
/** An entry of chaincode.externalBuilders (core.yaml): a builder directory with bin/detect, build, release. */
export interface ExternalBuilder {
  name: string;
  /** Absolute path of the builder directory, as the peer sees it. */
  path: string;
  propagateEnvironment?: string[];
}
