import { describe, expect, it } from 'vitest';
import { DEFAULT_WIDTH, MAX_WIDTH, MIN_WIDTH, clampWidth, loadLayout, saveLayout, widthForKey } from './sidebarLayout';

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
    data,
  };
}

describe('the sidebar width', () => {
  it('stays between its limits and always leaves room for the chat', () => {
    expect(clampWidth(50, 1280)).toBe(MIN_WIDTH);
    expect(clampWidth(2000, 1280)).toBe(MAX_WIDTH);
    expect(clampWidth(500, 800)).toBe(380);
    expect(clampWidth(Number.NaN, 1280)).toBe(DEFAULT_WIDTH);
  });

  it('moves with the arrow keys and jumps to its limits with Home and End', () => {
    expect(widthForKey('ArrowRight', 264, 1280)).toBe(280);
    expect(widthForKey('ArrowLeft', 264, 1280)).toBe(248);
    expect(widthForKey('Home', 300, 1280)).toBe(MIN_WIDTH);
    expect(widthForKey('End', 300, 1280)).toBe(MAX_WIDTH);
    expect(widthForKey('Enter', 300, 1280)).toBeNull();
  });
});

describe('the remembered layout', () => {
  it('comes back as it was saved', () => {
    const storage = memoryStorage();
    saveLayout(storage, { width: 333, collapsed: true });
    expect(loadLayout(storage)).toEqual({ width: 333, collapsed: true });
  });

  it('falls back to the default when nothing or garbage is saved', () => {
    expect(loadLayout(memoryStorage())).toEqual({ width: DEFAULT_WIDTH, collapsed: false });
    expect(loadLayout(memoryStorage({ 'lango.sidebar': '{not json' }))).toEqual({ width: DEFAULT_WIDTH, collapsed: false });
    expect(loadLayout(memoryStorage({ 'lango.sidebar': '{"width":"wide","collapsed":1}' }))).toEqual({
      width: DEFAULT_WIDTH,
      collapsed: false,
    });
    expect(loadLayout(undefined)).toEqual({ width: DEFAULT_WIDTH, collapsed: false });
  });
});
