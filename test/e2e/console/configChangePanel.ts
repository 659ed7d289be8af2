// The console's dry-run-then-Submit panel of a channel change (DryRunChange of
// web/src/pages/networks/ChannelConsenters.tsx), as the browser tests read and press it.
import * as assert from 'uvu/assert';
import type { Locator } from 'playwright-core';
import { until } from '../consortium/consortiumApi.ts';

/** The change panel's dry-run diff as shown: one [path, before, after] per row. */
export async function shownDiff(change: Locator): Promise<string[][]> {
  const diff = change.getByTestId('config-diff');
  await diff.waitFor({ timeout: 90_000 });
  return diff.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...(r as unknown as { querySelectorAll(s: string): Iterable<{ textContent: string | null }> }).querySelectorAll('td')].map((c) => c.textContent ?? '')));
}

/**
 * Submits the change shown in `change` and waits for its outcome. An orderer that is electing a
 * leader answers 503 for a moment: the refusal is shown and Submit stays offered, so it is pressed
 * again until the outcome shows (any other refusal fails the test with the message shown).
 */
export async function submitChange(change: Locator): Promise<string> {
  const outcome = change.getByTestId('consenter-outcome');
  await until('the change submitted', async () => {
    await change.getByRole('button', { name: 'Submit' }).click();
    await outcome.or(change.getByRole('alert')).first().waitFor({ timeout: 120_000 });
    if (await outcome.count()) return true;
    const refusal = await change.getByRole('alert').innerText();
    if (!/unavailable|not ready|leader|503|try again/i.test(refusal)) assert.unreachable(`refused: ${refusal}`);
    return null;
  }, 180_000, 2000);
  return outcome.innerText();
}
