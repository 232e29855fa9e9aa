/**
 * The status the backend served with the page (src-tauri/src/boot.rs): a JSON block in
 * index.html, so the shell is usable at its first render without a round trip to the
 * backend. It serves one page load: the first read removes the block, and every later
 * status comes from `appStatus()`.
 */

import type { AppStatus } from './types';

export const BOOT_ELEMENT_ID = 'lango-boot';

/** The served status, once; null when the page came without one (or it was read already). */
export function takeBootStatus(doc: Document = document): AppStatus | null {
  const block = doc.getElementById(BOOT_ELEMENT_ID);
  if (!block) return null;
  block.remove();
  try {
    const status = JSON.parse(block.textContent ?? '') as AppStatus | null;
    return status && typeof status.version === 'string' ? status : null;
  } catch {
    return null;
  }
}
