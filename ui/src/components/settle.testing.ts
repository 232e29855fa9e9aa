// For DOM tests (npm run test:dom): wait until mocked commands have answered and Svelte has
// applied what they changed.
import { flushSync, tick } from 'svelte';

/** A few rounds of: Svelte's pending updates, a macrotask (mocked promises and timers of 0),
 *  then effects flushed — a click's handler may await several commands in turn. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await tick();
    await new Promise((r) => setTimeout(r, 5));
    flushSync();
  }
}
