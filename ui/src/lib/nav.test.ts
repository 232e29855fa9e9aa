import { describe, expect, it } from 'vitest';
import { VIEWS, initialNav, isView, navReducer, viewForKey, type NavState } from './nav';

describe('navReducer', () => {
  it('starts on the chat view', () => {
    expect(initialNav.view).toBe('chat');
  });

  it('selects each view by tab', () => {
    for (const view of VIEWS) {
      expect(navReducer(initialNav, { type: 'select', view }).view).toBe(view);
    }
  });

  it('returns the same object when the view does not change', () => {
    const state: NavState = { view: 'memory' };
    expect(navReducer(state, { type: 'select', view: 'memory' })).toBe(state);
    expect(navReducer(state, { type: 'key', key: 'a' })).toBe(state);
  });

  it('ignores an unknown view instead of showing a blank screen', () => {
    const state: NavState = { view: 'settings' };
    // e.g. a stale value from a future version of the UI
    const next = navReducer(state, { type: 'select', view: 'plugins' as never });
    expect(next).toBe(state);
  });

  it('"New chat" always goes back to the chat view', () => {
    expect(navReducer({ view: 'settings' }, { type: 'newChat' }).view).toBe('chat');
    expect(navReducer({ view: 'memory' }, { type: 'newChat' }).view).toBe('chat');
  });

  it('moves between tabs with the keyboard', () => {
    expect(navReducer({ view: 'chat' }, { type: 'key', key: 'ArrowRight' }).view).toBe('memory');
    expect(navReducer({ view: 'memory' }, { type: 'key', key: 'ArrowLeft' }).view).toBe('chat');
  });

  it('does not mutate the previous state', () => {
    const state: NavState = Object.freeze({ view: 'chat' });
    const next = navReducer(state, { type: 'select', view: 'settings' });
    expect(state.view).toBe('chat');
    expect(next).not.toBe(state);
  });
});

describe('viewForKey', () => {
  it('wraps around at both ends', () => {
    expect(viewForKey('settings', 'ArrowRight')).toBe('chat');
    expect(viewForKey('chat', 'ArrowLeft')).toBe('settings');
  });

  it('jumps with Home and End', () => {
    expect(viewForKey('memory', 'Home')).toBe('chat');
    expect(viewForKey('memory', 'End')).toBe('settings');
  });

  it('returns null for keys that do not navigate', () => {
    expect(viewForKey('chat', 'Enter')).toBeNull();
    expect(viewForKey('chat', 'Tab')).toBeNull();
  });
});

describe('isView', () => {
  it('accepts only the known views', () => {
    expect(VIEWS.every(isView)).toBe(true);
    expect(isView('Chat')).toBe(false);
    expect(isView(undefined)).toBe(false);
  });
});
