import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LatestOnly } from './latestOnly';

describe('a lookup that follows typing', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is not settled while a keystroke made during a run still waits for its pause', async () => {
    const finish: Array<() => void> = [];
    let settled = 0;
    const lookup = new LatestOnly(
      100,
      () => new Promise<void>((resolve) => finish.push(resolve)),
      () => (settled += 1),
    );
    lookup.schedule();
    await vi.advanceTimersByTimeAsync(100);
    lookup.schedule(); // typed while the first run is on its way; its pause is not over
    finish[0]();
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(finish.length).toBe(2);
    finish[1]();
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(1);
  });
});
