// Mounted (npm run test:dom): typing through an input method (Chinese, Japanese, Korean…).
// The Enter that picks a candidate and the Escape that drops one belong to the IME, in
// WebKit also after the composition ended (keyCode 229, `isComposing` false: lib/ime.ts),
// so they never send the message, save or cancel a rename, clear the search or open its
// first hit. And in a text field inside the message list (a message being edited) Home and
// End move the caret instead of scrolling the list.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRawSnippet, flushSync, mount, unmount } from 'svelte';
import type { SessionSummary } from '../lib/api/types';

vi.mock('../lib/api/commands', () => ({ search: vi.fn(() => new Promise(() => {})) }));

const { default: Composer } = await import('./chat/Composer.svelte');
const { default: SessionRow } = await import('./sidebar/SessionRow.svelte');
const { default: SearchBox } = await import('./sidebar/SearchBox.svelte');
const { default: MessageList } = await import('./chat/MessageList.svelte');
const { GlobalSearch } = await import('./sidebar/search.svelte');

let app: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (app) unmount(app);
  app = null;
  document.body.innerHTML = '';
});

/** A key press as each kind of keyboard sends it: plain, inside a composition, or the
 *  WebKit one that ends a composition (keyCode 229, no longer composing). */
function press(target: Element, key: string, kind: 'plain' | 'composing' | 'webkit-ime'): KeyboardEvent {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, isComposing: kind === 'composing' });
  if (kind === 'webkit-ime') Object.defineProperty(event, 'keyCode', { value: 229 });
  target.dispatchEvent(event);
  flushSync();
  return event;
}

function mountIn<T extends Element>(tag: string): T {
  const target = document.createElement(tag) as unknown as T;
  document.body.append(target);
  return target;
}

describe('an input method’s keys', () => {
  it('never send the message; a plain Enter does', () => {
    const onSend = vi.fn();
    app = mount(Composer, { target: mountIn('div'), props: { value: '你好', onSend, onStop: () => {} } });
    flushSync();
    const box = document.querySelector('#composer-input')!;
    press(box, 'Enter', 'composing');
    press(box, 'Enter', 'webkit-ime');
    expect(onSend).not.toHaveBeenCalled();
    press(box, 'Enter', 'plain');
    expect(onSend).toHaveBeenCalledTimes(1);
  });

  it('never save or cancel a rename; plain Enter saves and Escape cancels', () => {
    const session: SessionSummary = { key: 's1', title: '旅行', model: '', pinned: false, createdAt: 1, updatedAt: 1 };
    const onRename = vi.fn();
    const onCancelRename = vi.fn();
    const props = { session, selected: false, now: Date.now(), renaming: true, onRename, onCancelRename };
    const noop = { onSelect: vi.fn(), onStartRename: vi.fn(), onTogglePin: vi.fn(), onExport: vi.fn(), onDelete: vi.fn() };
    app = mount(SessionRow, { target: mountIn('ul'), props: { ...props, ...noop } });
    flushSync();
    const input = document.querySelector<HTMLInputElement>('#rename-input')!;
    input.value = '東京への旅行';
    for (const kind of ['composing', 'webkit-ime'] as const) {
      press(input, 'Enter', kind);
      press(input, 'Escape', kind);
    }
    expect(onRename).not.toHaveBeenCalled();
    expect(onCancelRename).not.toHaveBeenCalled();
    press(input, 'Enter', 'plain');
    expect(onRename).toHaveBeenCalledWith('東京への旅行');
  });

  it('never clear the search or open its first hit', () => {
    const search = new GlobalSearch();
    search.changed('검색');
    const onPickFirst = vi.fn();
    app = mount(SearchBox, { target: mountIn('div'), props: { search, onPickFirst } });
    flushSync();
    const input = document.querySelector('#session-search')!;
    const escape = press(input, 'Escape', 'webkit-ime');
    press(input, 'Escape', 'composing');
    expect(search.query).toBe('검색');
    expect(escape.defaultPrevented).toBe(false);
    press(input, 'Escape', 'plain');
    expect(search.query).toBe('');
  });
});

describe('Home and End in the message list', () => {
  it('move the caret in a message being edited, and scroll the list elsewhere', () => {
    const row = createRawSnippet((item: () => { key: string }) => ({
      render: () => `<div class="message"><textarea aria-label="Edit ${item().key}"></textarea></div>`,
    }));
    app = mount(MessageList, { target: mountIn('div'), props: { items: [{ key: 'm1' }], row, label: 'Messages' } });
    flushSync();
    const editBox = document.querySelector('textarea')!;
    expect(press(editBox, 'Home', 'plain').defaultPrevented).toBe(false);
    expect(press(editBox, 'End', 'plain').defaultPrevented).toBe(false);
    expect(press(document.querySelector('.scroller')!, 'End', 'plain').defaultPrevented).toBe(true);
  });
});
