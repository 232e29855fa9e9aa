// Mounted (npm run test:dom): a sidebar row's "⋯" menu as a keyboard and pointer user works
// it — the WAI-ARIA menu button pattern (focus on open, arrows wrapping, Home/End, Escape
// back to the button), a right-click opening it, a click elsewhere closing it, and an action
// chosen reaching the sidebar once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { settle } from '../settle.testing';
import type { SessionSummary } from '../../lib/api/types';

const { default: SessionRow } = await import('./SessionRow.svelte');

const session: SessionSummary = {
  key: 's1',
  title: 'Trip to Lisbon',
  model: '',
  pinned: false,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
};

let target: HTMLElement;
let row: ReturnType<typeof mount> | null = null;
const actions = {
  onSelect: vi.fn(),
  onStartRename: vi.fn(),
  onRename: vi.fn(),
  onCancelRename: vi.fn(),
  onTogglePin: vi.fn(),
  onExport: vi.fn(),
  onDelete: vi.fn(),
};

beforeEach(() => {
  vi.clearAllMocks();
  target = document.createElement('ul');
  document.body.append(target);
  row = mount(SessionRow, { target, props: { session, selected: false, now: Date.now(), renaming: false, ...actions } });
  flushSync();
});

afterEach(() => {
  if (row) unmount(row);
  row = null;
  document.body.innerHTML = '';
});

const q = <T extends Element>(css: string) => document.querySelector<T>(css);
const button = () => q<HTMLButtonElement>('.menu-button')!;
const focused = () => (document.activeElement as HTMLElement | null)?.getAttribute('aria-label');
const press = (el: Element, key: string) =>
  el.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));

describe("a sidebar row's menu", () => {
  it('opens on its first item, moves with the arrows (wrapping), Home and End, and Escape returns to the button', async () => {
    button().click();
    await settle();
    expect(button().getAttribute('aria-expanded')).toBe('true');
    expect(focused()).toBe('Rename');
    const menu = q('[role="menu"]')!;
    press(menu, 'ArrowDown');
    expect(focused()).toBe('Pin');
    press(menu, 'End');
    expect(focused()).toBe('Delete');
    press(menu, 'ArrowDown');
    expect(focused()).toBe('Rename');
    press(menu, 'ArrowUp');
    expect(focused()).toBe('Delete');
    press(menu, 'Home');
    expect(focused()).toBe('Rename');
    press(menu, 'Escape');
    await settle();
    expect(q('[role="menu"]')).toBeNull();
    expect(document.activeElement).toBe(button());
  });

  it('opens on its last item with ArrowUp on the button', async () => {
    press(button(), 'ArrowUp');
    await settle();
    expect(focused()).toBe('Delete');
  });

  it('opens at the pointer on a right-click and closes on a click elsewhere', async () => {
    q('.session-item')!.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true, clientX: 40, clientY: 60 }));
    await settle();
    const menu = q<HTMLElement>('[role="menu"]')!;
    expect(menu.getAttribute('style')).toContain('left: 40px');
    document.body.dispatchEvent(new Event('pointerdown', { bubbles: true }));
    await settle();
    expect(q('[role="menu"]')).toBeNull();
    expect(actions.onDelete).not.toHaveBeenCalled();
  });

  it('passes the chosen action on once and closes', async () => {
    button().click();
    await settle();
    q<HTMLButtonElement>('.action-pin')!.click();
    await settle();
    expect(actions.onTogglePin).toHaveBeenCalledTimes(1);
    expect(q('[role="menu"]')).toBeNull();
    button().click();
    await settle();
    q<HTMLButtonElement>('.action-export-json')!.click();
    expect(actions.onExport).toHaveBeenCalledWith('json');
  });
});
