// The current configuration of a channel: the newest block's metadata names the last config
// block (OrdererBlockMetadata.last_config in SIGNATURES, as Fabric 2.x writes it; the older
// LAST_CONFIG slot otherwise), which is fetched and decoded.
//   fetchConfigBlock({kind, endpoint}, signer, channelName) -> { blockNumber, block, config (JSON) }
//   fetchConfig(source, signer, channelName)  -> { blockNumber, config: common.Config } (for updates)
//   configFromBlock(block)       -> common.Config of a config block (throws if it is not one)
//   configBlockChannel(block)    -> the channel id in a config block's header
//   decodeChannelConfig(block)   -> configtxlator-shaped JSON of the block's config
//   readConfigBlock(block)       -> { channelName, blockNumber, block, config } of a block a caller gives (import)
//   lastConfigIndex(block)       -> number
import { common } from '@hyperledger/fabric-protos';
import type { ChannelConfigBlock, ChannelConfigJson } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { configJson } from './channelConfigJson.ts';
import { deliverBlocks, type DeliverSource } from './fabricGrpcDeliver.ts';

// A block given by a caller (a join, an import) that is not a config block is bad input.
const notConfig = (message: string) => new ValidationError(message, [{ field: 'block', message: 'not a config block' }]);

function asBlock(block: Uint8Array | common.Block): common.Block {
  if (block instanceof common.Block) return block;
  try {
    return common.Block.deserializeBinary(block);
  } catch (err) {
    throw new ValidationError(`The bytes given are not a Fabric block: ${(err as Error).message}`, [{ field: 'block', message: 'not a common.Block' }]);
  }
}

export function lastConfigIndex(block: common.Block): number {
  const slots = block.getMetadata()?.getMetadataList_asU8() ?? [];
  const signatures = slots[common.BlockMetadataIndex.SIGNATURES];
  if (signatures?.length) {
    const ordererMetadata = common.OrdererBlockMetadata.deserializeBinary(common.Metadata.deserializeBinary(signatures).getValue_asU8());
    if (ordererMetadata.hasLastConfig()) return ordererMetadata.getLastConfig()!.getIndex();
  }
  const lastConfig = slots[common.BlockMetadataIndex.LAST_CONFIG];
  if (lastConfig?.length) return common.LastConfig.deserializeBinary(common.Metadata.deserializeBinary(lastConfig).getValue_asU8()).getIndex();
  // A genesis block built without metadata still is its own last config.
  if ((block.getHeader()?.getNumber() ?? 0) === 0) return 0;
  throw new Error(`Block ${block.getHeader()?.getNumber()} names no last config block in its metadata.`);
}

function configEnvelopeOf(blockInput: Uint8Array | common.Block): { header: common.ChannelHeader; payload: common.Payload } {
  const block = asBlock(blockInput);
  const number = block.getHeader()?.getNumber() ?? 0;
  const data = block.getData()?.getDataList_asU8() ?? [];
  if (data.length !== 1) throw notConfig(`Block ${number} is not a config block: it holds ${data.length} transactions.`);
  const payload = common.Payload.deserializeBinary(common.Envelope.deserializeBinary(data[0]).getPayload_asU8());
  const header = common.ChannelHeader.deserializeBinary(payload.getHeader()?.getChannelHeader_asU8() ?? new Uint8Array());
  if (header.getType() !== common.HeaderType.CONFIG) throw notConfig(`Block ${number} is not a config block (header type ${header.getType()}).`);
  return { header, payload };
}

/** The channel a config (or genesis) block belongs to; throws when it is not a config block. */
export function configBlockChannel(block: Uint8Array | common.Block): string {
  return configEnvelopeOf(block).header.getChannelId();
}

export function configFromBlock(block: Uint8Array | common.Block): common.Config {
  const { payload } = configEnvelopeOf(block);
  const number = asBlock(block).getHeader()?.getNumber() ?? 0;
  const config = common.ConfigEnvelope.deserializeBinary(payload.getData_asU8()).getConfig();
  if (!config) throw notConfig(`Config block ${number} carries no config.`);
  return config;
}

export function decodeChannelConfig(block: Uint8Array): ChannelConfigJson {
  return configJson(configFromBlock(block));
}

export function readConfigBlock(block: Uint8Array): ChannelConfigBlock & { channelName: string } {
  const parsed = asBlock(block);
  return { channelName: configBlockChannel(parsed), blockNumber: parsed.getHeader()?.getNumber() ?? 0, block, config: configJson(configFromBlock(parsed)) };
}

export async function fetchConfig(source: DeliverSource, signer: FabricSigner, channelName: string): Promise<{ blockNumber: number; block: common.Block; config: common.Config }> {
  const [newest] = await deliverBlocks(source, signer, channelName, 'newest', 'newest');
  const index = lastConfigIndex(newest);
  const block = index === newest.getHeader()?.getNumber() ? newest : (await deliverBlocks(source, signer, channelName, index, index))[0];
  return { blockNumber: index, block, config: configFromBlock(block) };
}

export async function fetchConfigBlock(source: DeliverSource, signer: FabricSigner, channelName: string): Promise<ChannelConfigBlock> {
  const { blockNumber, block, config } = await fetchConfig(source, signer, channelName);
  return { blockNumber, block: block.serializeBinary(), config: configJson(config) };
}
