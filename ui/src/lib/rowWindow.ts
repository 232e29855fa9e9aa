// Rows of a long list rendered a page at a time: the first page with the list, the next
// when the user scrolls near its end. The sidebar loads conversations 500 at a time
// (components/sidebar/sessionList.svelte.ts); rendering them all before the first paint cost
// a cold start ~0.6 s at 1,000 conversations (`make bench-scale`), while a window shows a few
// dozen.

/** Rows rendered at first, and added each time the end comes near. */
export const ROW_PAGE = 50;

/**
 * Calls `onVisible` when `node` (a marker after the rendered rows) comes within a screen of
 * the visible area. Key the marker by the count shown, so each page gets a fresh observer
 * (a marker still in view after a page was added asks again at once). Without
 * IntersectionObserver (an old engine), everything is shown at once.
 */
export function revealMore(node: Element, onVisible: () => void) {
  if (typeof IntersectionObserver === 'undefined') {
    onVisible();
    return {};
  }
  const observer = new IntersectionObserver(
    (entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        observer.disconnect();
        onVisible();
      }
    },
    { rootMargin: '100% 0px' },
  );
  observer.observe(node);
  return { destroy: () => observer.disconnect() };
}
