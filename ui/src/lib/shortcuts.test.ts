import { describe, expect, it } from 'vitest';
import { shortcutFor } from './shortcuts';

const key = (k: string, mods: Partial<{ ctrl: boolean; meta: boolean; alt: boolean }> = {}) => ({
  key: k,
  ctrlKey: mods.ctrl ?? false,
  metaKey: mods.meta ?? false,
  altKey: mods.alt ?? false,
  shiftKey: false,
});

describe('keyboard shortcuts', () => {
  it('maps ctrl and cmd combinations to the same actions', () => {
    expect(shortcutFor(key('n', { ctrl: true }))).toBe('newChat');
    expect(shortcutFor(key('N', { meta: true }))).toBe('newChat');
    expect(shortcutFor(key('k', { ctrl: true }))).toBe('search');
    expect(shortcutFor(key('b', { ctrl: true }))).toBe('toggleSidebar');
    expect(shortcutFor(key('f', { ctrl: true }))).toBe('find');
    expect(shortcutFor(key(',', { ctrl: true }))).toBe('settings');
    expect(shortcutFor(key('l', { ctrl: true }))).toBe('focusComposer');
  });

  it('escape stops a reply; plain letters do nothing', () => {
    expect(shortcutFor(key('Escape'))).toBe('stop');
    expect(shortcutFor(key('n'))).toBeNull();
    expect(shortcutFor(key('n', { ctrl: true, alt: true }))).toBeNull();
  });

  it('a key an input method handles is no shortcut: its Escape drops a candidate, not the reply', () => {
    expect(shortcutFor({ ...key('Escape'), isComposing: true })).toBeNull();
    // WebKit: the key that ends a composition is no longer "composing", but has keyCode 229.
    expect(shortcutFor({ ...key('Escape'), isComposing: false, keyCode: 229 })).toBeNull();
    expect(shortcutFor({ ...key('k', { ctrl: true }), isComposing: true })).toBeNull();
    expect(shortcutFor({ ...key('Escape'), isComposing: false, keyCode: 27 })).toBe('stop');
  });
});
