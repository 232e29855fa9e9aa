import { describe, expect, it, vi } from 'vitest';

describe('work held until the first frame', () => {
  it('waits for the frame after the first, then runs in order; later work runs at once', async () => {
    const frames: (() => void)[] = [];
    vi.stubGlobal('requestAnimationFrame', (f: () => void) => frames.push(f));
    const { afterFirstFrame } = await import('./firstFrame');
    const ran: string[] = [];
    afterFirstFrame(() => ran.push('a'));
    const b = () => ran.push('b');
    afterFirstFrame(b);
    afterFirstFrame(b);
    expect(ran).toEqual([]);
    // The first frame's own callback runs before that frame is painted.
    frames.shift()?.();
    expect(ran).toEqual([]);
    frames.shift()?.();
    expect(ran).toEqual(['a', 'b']);
    afterFirstFrame(() => ran.push('c'));
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(frames).toHaveLength(0);
    vi.unstubAllGlobals();
  });
});
