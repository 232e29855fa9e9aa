/**
 * The windowing math of the message list, free of the DOM so it is unit-tested.
 *
 * Items are identified by a stable string key (a message's seq), so measured heights
 * survive older pages being prepended. Unmeasured items count as `estimate` pixels. Offsets
 * are prefix sums recomputed lazily from the first item whose height changed, so measuring
 * the rows on screen costs O(items below them) at worst, and a lookup is a binary search.
 *
 * Scroll position is kept stable with an anchor: the key of the first visible item and how
 * far the viewport's top is below that item's top. After items are added above, or rows
 * above the viewport get their real height, `scrollTopFor(anchor)` says where to scroll so
 * the same content stays under the user's eyes.
 */

export interface WindowRange {
  /** First rendered index (inclusive). */
  start: number;
  /** Last rendered index (exclusive). */
  end: number;
  /** Space standing in for the items before `start`. */
  padTop: number;
  /** Space standing in for the items from `end` on. */
  padBottom: number;
  total: number;
}

export interface Anchor {
  key: string;
  /** scrollTop − the item's top (may be negative: the item is below the viewport's top). */
  delta: number;
}

export class VirtualLayout {
  private keys: string[] = [];
  private positions = new Map<string, number>();
  private sizes = new Map<string, number>();
  /** offsets[i] = top of item i; offsets[count] = total height. Valid up to `valid`. */
  private offsets: number[] = [0];
  private valid = 0;

  constructor(readonly estimate = 120) {}

  get count(): number {
    return this.keys.length;
  }

  keyAt(index: number): string | undefined {
    return this.keys[index];
  }

  indexOf(key: string): number {
    return this.positions.get(key) ?? -1;
  }

  /** Replaces the item list, keeping the heights measured for keys that remain. */
  setKeys(keys: readonly string[]): void {
    let same = 0;
    const old = this.keys;
    while (same < old.length && same < keys.length && old[same] === keys[same]) same++;
    if (same === old.length && same === keys.length) return;
    this.keys = keys.slice();
    this.positions = new Map();
    this.keys.forEach((k, i) => this.positions.set(k, i));
    // Forget the heights of items that went away, so the map cannot grow without bound.
    if (this.sizes.size > this.keys.length * 2 + 64) {
      for (const k of this.sizes.keys()) if (!this.positions.has(k)) this.sizes.delete(k);
    }
    this.offsets.length = this.keys.length + 1;
    this.valid = Math.min(this.valid, same);
  }

  /** Height of the item at `index`: measured, else the estimate. */
  heightAt(index: number): number {
    const key = this.keys[index];
    if (key === undefined) return 0;
    return this.sizes.get(key) ?? this.estimate;
  }

  isMeasured(key: string): boolean {
    return this.sizes.has(key);
  }

  /** Records a measured height; true when it changed the layout. */
  setHeight(key: string, height: number): boolean {
    const h = Math.max(0, height);
    const before = this.sizes.get(key);
    if (before !== undefined && Math.abs(before - h) < 0.5) return false;
    this.sizes.set(key, h);
    const index = this.positions.get(key);
    if (index === undefined) return false;
    if ((before ?? this.estimate) === h) return false;
    this.valid = Math.min(this.valid, index);
    return true;
  }

  private ensure(index: number): void {
    const target = Math.min(index, this.keys.length);
    if (this.valid >= target) return;
    let y = this.offsets[this.valid] ?? 0;
    if (this.valid === 0) y = 0;
    for (let i = this.valid; i < target; i++) {
      this.offsets[i] = y;
      y += this.heightAt(i);
    }
    this.offsets[target] = y;
    this.valid = target;
  }

  /** Top of the item at `index` (index = count gives the total height). */
  offsetOf(index: number): number {
    const i = Math.max(0, Math.min(index, this.keys.length));
    this.ensure(i);
    return this.offsets[i];
  }

  totalHeight(): number {
    return this.offsetOf(this.keys.length);
  }

  /** The index of the item covering `y` (clamped to the list). -1 for an empty list. */
  indexAt(y: number): number {
    const n = this.keys.length;
    if (n === 0) return -1;
    this.ensure(n);
    if (y <= 0) return 0;
    if (y >= this.offsets[n]) return n - 1;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid] <= y) lo = mid;
      else hi = mid - 1;
    }
    // Skip zero-height items sitting at the same offset.
    while (lo < n - 1 && this.offsets[lo + 1] <= y) lo++;
    return lo;
  }

  /** What to render for a viewport at `scrollTop`, with `overscan` pixels above and below. */
  range(scrollTop: number, viewport: number, overscan: number): WindowRange {
    const n = this.keys.length;
    const total = this.totalHeight();
    if (n === 0) return { start: 0, end: 0, padTop: 0, padBottom: 0, total: 0 };
    const top = Math.max(0, scrollTop - overscan);
    const bottom = Math.max(top, scrollTop + Math.max(0, viewport) + overscan);
    const start = this.indexAt(top);
    const end = Math.min(n, this.indexAt(bottom) + 1);
    const padTop = this.offsetOf(start);
    const padBottom = total - this.offsetOf(end);
    return { start, end, padTop, padBottom, total };
  }

  /** The anchor for a viewport whose top is at `scrollTop`. */
  anchorAt(scrollTop: number): Anchor | null {
    const index = this.indexAt(Math.max(0, scrollTop));
    if (index < 0) return null;
    return { key: this.keys[index], delta: scrollTop - this.offsetOf(index) };
  }

  /** Where to scroll so the anchor's content is where it was; null if the key is gone. */
  scrollTopFor(anchor: Anchor): number | null {
    const index = this.indexOf(anchor.key);
    if (index < 0) return null;
    return Math.max(0, this.offsetOf(index) + anchor.delta);
  }
}

/** True when the viewport is within `threshold` pixels of the end of the content. */
export function isNearBottom(
  scrollTop: number,
  viewport: number,
  scrollHeight: number,
  threshold = 48,
): boolean {
  return scrollHeight - (scrollTop + viewport) <= threshold;
}

/** The scrollTop that shows the end of the content. */
export function bottomScrollTop(viewport: number, total: number): number {
  return Math.max(0, total - viewport);
}

/**
 * The scrollTop that puts the item at `index` at `fraction` of the viewport's height
 * (0 = top, 0.5 = centre), clamped to the scrollable range.
 */
export function scrollTopToReveal(
  layout: VirtualLayout,
  index: number,
  viewport: number,
  fraction = 0.25,
): number {
  const top = layout.offsetOf(index);
  const wanted = top - viewport * fraction;
  return Math.max(0, Math.min(wanted, bottomScrollTop(viewport, layout.totalHeight())));
}
