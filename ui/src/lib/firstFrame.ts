/**
 * Work that forces a layout, held until the window has painted its first frame. Before that
 * frame, a forced layout is the page's whole first style and layout (fonts included), done
 * again once the rest of the start-up changed the page: ~20 ms of a cold start each time
 * (`make perf`). After the first frame, such work runs at once. `afterNextPaint` holds other
 * work until the next frame is on screen (the time under each message).
 */

let painted = false;
const waiting: (() => void)[] = [];

/**
 * Runs `work` once the first frame has been painted (at once if it has); the same `work`
 * asked for again while it waits runs once.
 */
export function afterFirstFrame(work: () => void): void {
  if (painted) {
    work();
    return;
  }
  if (waiting.includes(work)) return;
  if (waiting.push(work) > 1) return;
  afterNextPaint(() => {
    painted = true;
    for (const queued of waiting.splice(0)) queued();
  });
}

/** Runs `work` once the next frame has been painted (without frames, ~16 ms later). */
export function afterNextPaint(work: () => void): void {
  const frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (f: () => void) => setTimeout(f, 16);
  // The second callback runs before the frame after the first: the first has been painted.
  frame(() => frame(work));
}
