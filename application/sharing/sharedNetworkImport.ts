// A channel of a peer instance recorded here from the block 0 the peer shared: its members are
// the organizations the peer lists now (this instance's own organization among them, added by a
// config update on the peer's side), so this instance's peers of that organization can join it
// with JoinChain over block 0 and then pull the rest of the chain from the peer's orderers.
import { ValidationError } from '../../domain/shared/errors.ts';
import { assertNetworkName } from '../../domain/networks/networkName.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import type { SharedNetwork } from '../../domain/sharing/nodeSharing.ts';
import { getOrganizationByMspId } from '../../projections/organizations.ts';
import { runCommand } from '../commands.ts';
import { DEFAULT_BATCH } from '../consortium/consortiumNetworkCreate.ts';
import type { CommandInput } from '../keys/keyCreation.ts';

export async function importSharedNetwork(input: CommandInput, shared: SharedNetwork, name: string): Promise<number> {
  const { deps } = input;
  assertNetworkName(name);
  const block = Buffer.from(String(shared.genesisBlock ?? ''), 'base64');
  if (!block.length) throw new ValidationError('The peer shared no block 0 for this channel; sync again.', [{ field: 'networkId', message: 'no block' }]);
  const members = async (mspIds: string[]) => Promise.all((mspIds ?? []).map(async (mspId) => ({ organizationId: (await getOrganizationByMspId(deps.pool, mspId))?.id ?? null, mspId })));
  const organizations = await members(shared.organizations);
  if (!organizations.some((o) => o.organizationId !== null)) {
    throw new ValidationError(`No organization of this instance is a member of channel ${shared.channelName} (${shared.organizations.join(', ')}).`, [{ field: 'networkId', message: 'no local organization in the channel' }]);
  }
  const networkId = await deps.nextId('network');
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, {
    type: 'CreateConsortiumNetwork', networkId, platform: 'CONSORTIUM', name, channelName: shared.channelName, description: `channel ${shared.channelName} shared by a peer instance`, consensus: 'etcdraft',
    organizations, ordererOrganizations: await members(shared.ordererOrganizations), ordererEndpoints: shared.ordererEndpoints, nodes: [],
    batch: DEFAULT_BATCH, genesisBlock: block.toString('base64'), imported: true, at: deps.clock().toISOString(),
  });
  return networkId;
}
