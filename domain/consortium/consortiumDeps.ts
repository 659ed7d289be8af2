// Everything the consortium routes need from the outside, wired by the composition root.
import type { ConsortiumCredentials, ConsortiumDefaults, ConsortiumNodeRuntime } from './consortiumPorts.ts';
import type { ConsortiumChannels } from './consortiumChannelPorts.ts';
import type { ConsortiumChaincodes } from './consortiumChaincodePorts.ts';

export interface ConsortiumDeps {
  runtime: ConsortiumNodeRuntime;
  credentials: ConsortiumCredentials;
  channels: ConsortiumChannels;
  chaincodes: ConsortiumChaincodes;
  defaults: ConsortiumDefaults;
}
