import { describe, expect, it } from 'vitest';
import { VirtualLayout, bottomScrollTop, isNearBottom, scrollTopToReveal } from './virtualList';

const keys = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `m${from + i}`);

describe('VirtualLayout', () => {
  it('estimates unmeasured items and sums measured ones', () => {
    const l = new VirtualLayout(100);
    l.setKeys(keys(5));
    expect(l.totalHeight()).toBe(500);
    expect(l.setHeight('m1', 40)).toBe(true);
    expect(l.setHeight('m1', 40)).toBe(false);
    expect(l.offsetOf(0)).toBe(0);
    expect(l.offsetOf(1)).toBe(100);
    expect(l.offsetOf(2)).toBe(140);
    expect(l.totalHeight()).toBe(440);
  });

  it('finds the item under an offset', () => {
    const l = new VirtualLayout(50);
    l.setKeys(keys(4));
    expect(l.indexAt(-10)).toBe(0);
    expect(l.indexAt(0)).toBe(0);
    expect(l.indexAt(49)).toBe(0);
    expect(l.indexAt(50)).toBe(1);
    expect(l.indexAt(199)).toBe(3);
    expect(l.indexAt(5000)).toBe(3);
    expect(new VirtualLayout().indexAt(10)).toBe(-1);
  });

  it('skips zero-height items at the same offset', () => {
    const l = new VirtualLayout(50);
    l.setKeys(keys(3));
    l.setHeight('m1', 0);
    expect(l.indexAt(50)).toBe(2);
  });

  it('renders only the visible window plus overscan', () => {
    const l = new VirtualLayout(100);
    l.setKeys(keys(10_000));
    const r = l.range(500_000, 800, 200);
    expect(r.start).toBe(4998);
    expect(r.end).toBe(5011);
    expect(r.end - r.start).toBeLessThan(20);
    expect(r.padTop).toBe(499_800);
    expect(r.padTop + (r.end - r.start) * 100 + r.padBottom).toBe(r.total);
    expect(r.total).toBe(1_000_000);
  });

  it('handles an empty list and the ends of the list', () => {
    const l = new VirtualLayout(100);
    expect(l.range(0, 500, 100)).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0, total: 0 });
    l.setKeys(keys(3));
    expect(l.range(0, 1000, 100)).toMatchObject({ start: 0, end: 3, padTop: 0, padBottom: 0 });
    const last = l.range(10_000, 100, 0);
    expect(last.end).toBe(3);
  });

  it('keeps measurements when older items are prepended', () => {
    const l = new VirtualLayout(100);
    l.setKeys(keys(3, 100));
    l.setHeight('m100', 30);
    l.setHeight('m102', 70);
    l.setKeys([...keys(2, 98), ...keys(3, 100)]);
    expect(l.count).toBe(5);
    expect(l.indexOf('m100')).toBe(2);
    expect(l.offsetOf(2)).toBe(200);
    expect(l.totalHeight()).toBe(200 + 30 + 100 + 70);
  });

  it('recomputes offsets only from the first changed key when items are appended', () => {
    const l = new VirtualLayout(10);
    l.setKeys(keys(3));
    expect(l.totalHeight()).toBe(30);
    l.setKeys(keys(5));
    expect(l.totalHeight()).toBe(50);
    l.setKeys(keys(2));
    expect(l.totalHeight()).toBe(20);
    expect(l.indexOf('m4')).toBe(-1);
  });

  it('keeps the anchored content in place when items are prepended above it', () => {
    const l = new VirtualLayout(100);
    l.setKeys(keys(10, 50));
    const anchor = l.anchorAt(230)!;
    expect(anchor).toEqual({ key: 'm52', delta: 30 });
    l.setKeys([...keys(5, 45), ...keys(10, 50)]);
    expect(l.scrollTopFor(anchor)).toBe(730);
  });

  it('keeps the anchored content in place when rows above it get measured', () => {
    const l = new VirtualLayout(100);
    l.setKeys(keys(10));
    const anchor = l.anchorAt(420)!;
    l.setHeight('m0', 300);
    l.setHeight('m2', 20);
    expect(l.scrollTopFor(anchor)!).toBe(420 + 200 - 80);
    expect(l.scrollTopFor({ key: 'gone', delta: 0 })).toBeNull();
  });

  it('is fast enough for a 10,000-message session', () => {
    const l = new VirtualLayout(90);
    l.setKeys(keys(10_000));
    const t0 = performance.now();
    for (let i = 0; i < 2_000; i++) {
      const top = (i * 4_217) % 880_000;
      const r = l.range(top, 800, 600);
      for (let j = r.start; j < r.end; j++) l.setHeight(l.keyAt(j)!, 60 + ((j * 37) % 200));
    }
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});

describe('scroll helpers', () => {
  it('detects the bottom of the list', () => {
    expect(isNearBottom(900, 100, 1000)).toBe(true);
    expect(isNearBottom(860, 100, 1000)).toBe(true);
    expect(isNearBottom(500, 100, 1000)).toBe(false);
    expect(bottomScrollTop(500, 200)).toBe(0);
    expect(bottomScrollTop(500, 2000)).toBe(1500);
  });

  it('reveals an item a quarter down the viewport, clamped', () => {
    const l = new VirtualLayout(100);
    l.setKeys(keys(100));
    expect(scrollTopToReveal(l, 50, 400)).toBe(4900);
    expect(scrollTopToReveal(l, 0, 400)).toBe(0);
    expect(scrollTopToReveal(l, 99, 400)).toBe(9600);
  });
});
