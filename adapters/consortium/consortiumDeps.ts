// Wiring of the consortium ports (domain/consortium/consortiumDeps.ts) for the composition root:
// the Fabric node runtime over the process and docker engines (with the chaincode-as-a-service
// builder in every peer), the credentials assembled from the key records, and the channel
// operations. The runtime reads node keys from the database provider only (Fabric reads them
// from files); organizations in other providers cannot have nodes (400 at creation).
import type { EventStore } from '../../domain/shared/eventStore.ts';
import type { NodeEngine } from '../../domain/nodes/nodeEngine.ts';
import type { KeyServices } from '../../domain/keys/keyServices.ts';
import type { ConsortiumDeps } from '../../domain/consortium/consortiumDeps.ts';
import type { ConsortiumChannels } from '../../domain/consortium/consortiumChannelPorts.ts';
import { databasePrivateKeyPem, type SqlQueryable } from '../keyProviders/databaseKeyProvider.ts';
import { resolveKeyEncryptionKey } from '../keyProviders/keyEncryptionKeyFile.ts';
import { createConsortiumNodeRuntime } from './consortiumNodeRuntime.ts';
import { createConsortiumCredentials } from './consortiumCredentials.ts';
import { fabricConsortiumChaincodes } from './consortiumChaincodes.ts';

export async function createConsortiumDeps(opts: {
  pool: SqlQueryable;
  store: EventStore;
  dataDir: string;
  keys: KeyServices;
  channels: ConsortiumChannels;
  engine: 'process' | 'docker';
  chaincodePortFrom?: number;
  chaincodeHost?: string;
  env?: Record<string, string | undefined>;
  /** The engine of a registered node host (docs/hosts.md). */
  hostEngine?: (hostId: number) => Promise<NodeEngine | null>;
}): Promise<ConsortiumDeps> {
  const env = opts.env ?? process.env;
  // openKeyServices resolved and verified the same key at start-up (KEY_ENCRYPTION_KEY, else the data-dir file).
  const kek = resolveKeyEncryptionKey({ env, dataDir: opts.dataDir });
  const nodeKeyPem = (handle: string) => databasePrivateKeyPem({ pool: opts.pool, keyEncryptionKey: kek.key }, handle);
  return {
    runtime: createConsortiumNodeRuntime({ dataDir: opts.dataDir, env, hostEngine: opts.hostEngine }),
    credentials: createConsortiumCredentials({ store: opts.store, keys: opts.keys, nodeKeyPem }),
    channels: opts.channels,
    chaincodes: fabricConsortiumChaincodes({ dataDir: opts.dataDir, env, hostEngine: opts.hostEngine }),
    defaults: { engine: opts.engine, chaincodePortFrom: opts.chaincodePortFrom, chaincodeHost: opts.chaincodeHost },
  };
}
