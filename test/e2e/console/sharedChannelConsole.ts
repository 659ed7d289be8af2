// The two-instance page set-up of the console's signing and sharing proposal tests: a shared
// channel pair (test/e2e/sharing/sharedChannelPair.ts) whose channel B has recorded too (imported
// over the API: a proposal goes to a signer that knows the channel), and a browser session on
// A's console. B's console is opened as localhost, A's as 127.0.0.1: the two session cookies do
// not meet. stop() closes the browser and then the pair.
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { startSharedChannelPair, type SharedChannelOptions, type SharedChannelPair } from '../sharing/sharedChannelPair.ts';

export interface SharedChannelConsole {
  pair: SharedChannelPair;
  ui: ConsoleSession;
  page: Page;
  /** B's console address (localhost), for ui.signIn(ADMIN, { url: bUrl }). */
  bUrl: string;
  stop(): Promise<void>;
}

export async function startSharedChannelConsole(o: SharedChannelOptions): Promise<SharedChannelConsole> {
  const pair = await startSharedChannelPair(o);
  let ui: ConsoleSession | undefined;
  try {
    const shared = (await pair.apiB('GET', '/nodesharing/peers')).json.items[0].networks.find((n: { channel_name: string }) => n.channel_name === o.channelName);
    assert.ok(shared, `B lists no channel ${o.channelName}`);
    const r = await pair.apiB('POST', `/nodesharing/peers/${pair.peerOnB}/networks/${shared.network_id}/import`, {});
    assert.is(r.status, 201, r.text);
    ui = await startConsoleSession({ server: pair.a });
  } catch (e) {
    await pair.stop();
    throw e;
  }
  const session = ui;
  return {
    pair, ui: session, page: session.page, bUrl: pair.b.url.replace('127.0.0.1', 'localhost'),
    stop: async () => {
      await session.close();
      await pair.stop();
    },
  };
}
