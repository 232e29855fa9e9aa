/**
 * Which desktop the window runs on, read once from the user agent and put on the root
 * element (`data-platform`) before the first layout, so the CSS can pick fonts per platform.
 *
 * Why fonts: on Linux, WebKitGTK resolves `system-ui` and font families that are not
 * installed (`ui-monospace`, `Cascadia Mono`, `Consolas`) through fontconfig's full
 * substitution for every size and weight on the page; at a cold start that was 40–70 ms of
 * the first layout (`make perf`). There the stacks are the fontconfig aliases the desktop
 * configures (`sans-serif`, `monospace`); macOS and Windows keep their system fonts.
 */

export type Platform = 'linux' | 'macos' | 'windows' | 'other';

export function platformOf(userAgent: string): Platform {
  if (/Windows/i.test(userAgent)) return 'windows';
  if (/Macintosh|Mac OS X/i.test(userAgent)) return 'macos';
  if (/Linux|X11|FreeBSD|OpenBSD/i.test(userAgent)) return 'linux';
  return 'other';
}

export function markPlatform(root: HTMLElement, userAgent: string): void {
  root.dataset.platform = platformOf(userAgent);
}
