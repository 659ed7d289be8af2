import type pg from 'pg';
import { listConsortiumNetworks, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';

/** A consortium network of this instance by its channel name (a channel shared by a peer is recorded once). */
export async function getConsortiumNetworkByChannel(pool: pg.Pool, channelName: string): Promise<ConsortiumNetworkRow | null> {
  const { items } = await listConsortiumNetworks(pool, 10_000, 0);
  return items.find((n) => n.channelName === channelName) ?? null;
}
