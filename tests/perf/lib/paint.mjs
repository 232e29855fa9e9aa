// Opening a conversation timed inside the page: what `make perf` and the desktop rows of
// `make bench-scale` share.

import { waitFor } from '../../e2e/lib/webdriver.mjs';

/**
 * Clicks `selector` (a conversation in the sidebar) and resolves with the milliseconds, on
 * the page's clock, until its first message is in the page and the next frame painted.
 */
export async function clickAndTimeFirstMessage(session, selector) {
  await session.execute(
    `window.__open = { start: performance.now(), paint: null };
     const obs = new MutationObserver(() => {
       if (document.querySelector('.message[data-seq]') && window.__open.paint === null) {
         window.__open.paint = -1;
         requestAnimationFrame(() => { window.__open.paint = performance.now() - window.__open.start; });
         obs.disconnect();
       }
     });
     obs.observe(document.body, { childList: true, subtree: true });
     document.querySelector(arguments[0]).click();`,
    [selector],
  );
  return waitFor(
    async () => {
      const v = await session.execute('return window.__open.paint');
      return typeof v === 'number' && v >= 0 ? v : null;
    },
    { timeout: 60_000, interval: 20, what: 'the conversation' },
  );
}
