// A chunk loaded on demand: once, shared by every caller; a failed load is shown as failed
// and asked again by the next caller, never remembered as absent.
import { describe, expect, it, vi } from 'vitest';
import { LazyModule } from './lazyModule.svelte';

describe('a module loaded on demand', () => {
  it('is imported once however many ask, and is current once in', async () => {
    const importer = vi.fn(async () => ({ name: 'renderer' }));
    const lazy = new LazyModule(importer);
    expect(lazy.current).toBeNull();
    const [a, b] = await Promise.all([lazy.load(), lazy.load()]);
    expect(a).toBe(b);
    expect(lazy.current).toBe(a);
    await lazy.load();
    expect(importer).toHaveBeenCalledTimes(1);
  });

  it('says a failed load failed, and the next caller loads it again', async () => {
    const importer = vi
      .fn<() => Promise<{ name: string }>>()
      .mockRejectedValueOnce(new Error('chunk could not be read'))
      .mockResolvedValueOnce({ name: 'renderer' });
    const lazy = new LazyModule(importer);
    await expect(lazy.load()).rejects.toThrow('chunk could not be read');
    expect(lazy.failed).toBe(true);
    expect(lazy.current).toBeNull();

    await expect(lazy.load()).resolves.toEqual({ name: 'renderer' });
    expect(lazy.failed).toBe(false);
    expect(lazy.current).toEqual({ name: 'renderer' });
    expect(importer).toHaveBeenCalledTimes(2);
  });
});
