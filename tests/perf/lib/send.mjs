// Sends a message in the open conversation and times it inside the page: what the desktop
// soak and the 1M desktop measurement share.

import { waitFor } from '../../e2e/lib/webdriver.mjs';

/**
 * Sends `text` and resolves with {first, done} (ms, on the page's clock): the first streamed
 * words of the reply on screen, and the reply stored with the composer ready again.
 */
export async function sendAndWait(session, text) {
  await session.execute(
    `const text = arguments[0];
     const seqOf = (el) => Number(el.dataset.seq);
     const before = Math.max(0, ...[...document.querySelectorAll('.message[data-role="assistant"][data-seq]')].map(seqOf));
     const input = document.querySelector('#composer-input');
     input.value = text;
     input.dispatchEvent(new Event('input', { bubbles: true }));
     const t = { start: null, first: null, done: null };
     window.__send = t;
     const check = () => {
       if (t.start === null) return;
       const now = performance.now() - t.start;
       const stored = [...document.querySelectorAll('.message[data-role="assistant"][data-seq]')].find((el) => seqOf(el) > before);
       const live = document.querySelector('.message[data-status="streaming"]');
       if (t.first === null && ((live && live.textContent.trim()) || stored)) t.first = now;
       if (t.done === null && stored && !live && document.querySelector('#send-button') && !document.querySelector('#stop-button')) {
         t.done = now;
         obs.disconnect();
       }
     };
     const obs = new MutationObserver(check);
     obs.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
     // The send button enables once the UI saw the input (next microtask).
     setTimeout(() => { t.start = performance.now(); document.querySelector('#send-button').click(); }, 0);`,
    [text],
  );
  return waitFor(
    async () => {
      const t = await session.execute('return window.__send');
      return t && t.done !== null ? t : null;
    },
    { timeout: 30_000, interval: 10, what: `the reply to ${JSON.stringify(text)}` },
  );
}
