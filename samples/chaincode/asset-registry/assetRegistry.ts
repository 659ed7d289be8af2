// Sample chaincode: an asset registry on fabric-contract-api (no decorators: every method of the
// contract that does not start with "_" is a transaction). The service transpiles this file to
// assetRegistry.js and runs it as a chaincode server (chaincode as a service); see the README's
// "Chaincode" section. Assets are JSON in world state under their id.
import { Contract, type Context } from 'fabric-contract-api';

/** What RegistryVersion answers; version 2 of the quick start changes it. */
const REGISTRY_VERSION = '1';

interface Asset {
  id: string;
  color: string;
  size: number;
  owner: string;
  value: number;
}

export class AssetRegistry extends Contract {
  constructor() {
    super('AssetRegistry');
  }

  async CreateAsset(ctx: Context, id: string, color: string, size: string, owner: string, value: string): Promise<string> {
    if (await this._exists(ctx, id)) throw new Error(`asset ${id} already exists`);
    const asset: Asset = { id, color, size: this._number('size', size), owner, value: this._number('value', value) };
    await ctx.stub.putState(id, Buffer.from(JSON.stringify(asset)));
    return JSON.stringify(asset);
  }

  async ReadAsset(ctx: Context, id: string): Promise<string> {
    const bytes = await ctx.stub.getState(id);
    if (!bytes || bytes.length === 0) throw new Error(`asset ${id} does not exist`);
    return Buffer.from(bytes).toString('utf8');
  }

  async UpdateAsset(ctx: Context, id: string, color: string, size: string, owner: string, value: string): Promise<string> {
    if (!(await this._exists(ctx, id))) throw new Error(`asset ${id} does not exist`);
    const asset: Asset = { id, color, size: this._number('size', size), owner, value: this._number('value', value) };
    await ctx.stub.putState(id, Buffer.from(JSON.stringify(asset)));
    return JSON.stringify(asset);
  }

  async TransferAsset(ctx: Context, id: string, newOwner: string): Promise<string> {
    const asset = JSON.parse(await this.ReadAsset(ctx, id)) as Asset;
    const previous = asset.owner;
    asset.owner = newOwner;
    await ctx.stub.putState(id, Buffer.from(JSON.stringify(asset)));
    return previous;
  }

  async DeleteAsset(ctx: Context, id: string): Promise<void> {
    if (!(await this._exists(ctx, id))) throw new Error(`asset ${id} does not exist`);
    await ctx.stub.deleteState(id);
  }

  async AssetExists(ctx: Context, id: string): Promise<boolean> {
    return this._exists(ctx, id);
  }

  async GetAllAssets(ctx: Context): Promise<string> {
    const all: Asset[] = [];
    const iterator = await ctx.stub.getStateByRange('', '');
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
      all.push(JSON.parse(Buffer.from(r.value.value).toString('utf8')) as Asset);
    }
    await iterator.close();
    return JSON.stringify(all);
  }

  /** A private note on an asset in a private data collection; the note travels as transient data ("note"), never in the transaction. */
  async SetPrivateNote(ctx: Context, collection: string, id: string): Promise<void> {
    const note = ctx.stub.getTransient().get('note');
    if (!note || note.length === 0) throw new Error('give the note as transient data "note"');
    await ctx.stub.putPrivateData(collection, id, note);
  }

  async GetPrivateNote(ctx: Context, collection: string, id: string): Promise<string> {
    const bytes = await ctx.stub.getPrivateData(collection, id);
    if (!bytes || bytes.length === 0) throw new Error(`no private note on ${id} in ${collection}`);
    return Buffer.from(bytes).toString('utf8');
  }

  async RegistryVersion(_ctx: Context): Promise<string> {
    return REGISTRY_VERSION;
  }

  async _exists(ctx: Context, id: string): Promise<boolean> {
    const bytes = await ctx.stub.getState(id);
    return !!bytes && bytes.length > 0;
  }

  _number(field: string, text: string): number {
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${field} must be a non-negative number, not "${text}"`);
    return n;
  }
}

export const contracts = [AssetRegistry];
