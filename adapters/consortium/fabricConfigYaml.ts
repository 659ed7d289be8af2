// Fabric's own core.yaml / orderer.yaml with a node's settings written in. The release's file is
// the base (every setting with its documented default, comments kept), so a node's config reads
// like Fabric's documentation and nothing is left to a default compiled into the binary.
//   fabricConfigWith(baseText, settings, fileName) -> YAML text
// A setting whose key the base does not have is refused: Fabric would silently ignore a
// misspelt key, and a base that lacks one is not the release this service is written for.
// A few settings are documented in the release's file only as comments (peer.chaincodeAddress):
// Settings of one release line only are marked `ifPresent` and skipped where the base lacks them.
// those are marked `commentedOut` and added under their existing parent.
import { parseDocument } from 'yaml';

export type FabricSetting = readonly [path: readonly string[], value: unknown, how?: 'commentedOut' | 'ifPresent'];

export function fabricConfigWith(baseText: string, settings: readonly FabricSetting[], fileName: string): string {
  const doc = parseDocument(baseText);
  if (doc.errors.length) throw new Error(`Fabric's ${fileName} does not parse as YAML: ${doc.errors[0].message}`);
  for (const [key, value, how] of settings) {
    const present = how === 'commentedOut' ? key.length === 1 || doc.hasIn(key.slice(0, -1)) : doc.hasIn(key);
    // A setting of one release only (Fabric 2.5's General.BootstrapMethod, gone in 3.x with the system channel).
    if (!present && how === 'ifPresent') continue;
    if (!present) throw new Error(`Fabric's ${fileName} has no setting ${key.join('.')}; is it the ${fileName} of Fabric 2.5?`);
    doc.setIn(key, doc.createNode(value));
  }
  return doc.toString({ lineWidth: 0 });
}
