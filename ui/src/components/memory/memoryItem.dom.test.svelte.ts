// Mounted and clicked (npm run test:dom): editing and deleting one observation or reflection
// of the memory browser — what is saved, what Escape does, where focus goes, and that a failed
// save keeps the user's text — against mocked commands.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { settle } from '../settle.testing';
import type { Observation, Reflection } from '../../lib/api/types';
import { observation, reflection } from './notes.testing';

const commands = vi.hoisted(() => ({
  updateMemoryItem: vi.fn(),
  deleteMemoryItem: vi.fn(),
  memorySources: vi.fn(),
}));
vi.mock('../../lib/api/commands', () => commands);

const { default: MemoryItem } = await import('./MemoryItem.svelte');


let target: HTMLElement;
let card: ReturnType<typeof mount> | null = null;
let changed: ReturnType<typeof vi.fn>;

function show(kind: 'observation' | 'reflection', item: Observation | Reflection) {
  changed = vi.fn();
  card = mount(MemoryItem, { target, props: { kind, item, sessionKey: 's1', now: Date.now(), onChanged: changed } });
  flushSync();
}

const q = <T extends Element>(css: string) => target.querySelector<T>(css);
const press = (el: Element, key: string, extra: KeyboardEventInit = {}) =>
  el.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...extra }));

beforeEach(() => {
  vi.clearAllMocks();
  target = document.createElement('ul');
  document.body.append(target);
});

afterEach(() => {
  if (card) unmount(card);
  card = null;
  target.remove();
});

describe('editing a memory item', () => {
  it('saves the trimmed text with Ctrl+Enter and tells the browser to refresh', async () => {
    commands.updateMemoryItem.mockResolvedValue(undefined);
    show('observation', observation);
    q<HTMLButtonElement>('.memory-edit')!.click();
    await settle();
    const editor = q<HTMLTextAreaElement>('.memory-edit-input')!;
    expect(document.activeElement).toBe(editor);
    editor.value = '  The user is planning a trip to Porto in June.  ';
    editor.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    press(editor, 'Enter', { ctrlKey: true });
    await settle();
    expect(commands.updateMemoryItem).toHaveBeenCalledWith('observation', 'obs-1', 'The user is planning a trip to Porto in June.');
    expect(changed).toHaveBeenCalledTimes(1);
    expect(q('.memory-edit-input')).toBeNull();
  });

  it('does not save unchanged or empty text, and Escape leaves the item as it was', async () => {
    show('observation', observation);
    q<HTMLButtonElement>('.memory-edit')!.click();
    await settle();
    expect(q<HTMLButtonElement>('.memory-edit-save')!.disabled).toBe(true);
    const editor = q<HTMLTextAreaElement>('.memory-edit-input')!;
    editor.value = '   ';
    editor.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    expect(q('.edit-hint')!.textContent).toContain('cannot be empty');
    press(editor, 'Escape');
    await settle();
    expect(commands.updateMemoryItem).not.toHaveBeenCalled();
    expect(q('.memory-edit-input')).toBeNull();
    expect(q('.content')!.textContent).toContain('Lisbon');
    expect(document.activeElement).toBe(q('.memory-edit'));
  });

  it('keeps the edited text and says why when the save fails', async () => {
    commands.updateMemoryItem.mockRejectedValue({ code: 'store', message: 'The database is read-only.' });
    show('reflection', reflection);
    q<HTMLButtonElement>('.memory-edit')!.click();
    await settle();
    const editor = q<HTMLTextAreaElement>('.memory-edit-input')!;
    editor.value = 'The user plans every trip by train.';
    editor.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    q<HTMLButtonElement>('.memory-edit-save')!.click();
    await settle();
    expect(q('[role="alert"]')!.textContent).toContain('The database is read-only.');
    expect(q<HTMLTextAreaElement>('.memory-edit-input')!.value).toBe('The user plans every trip by train.');
    expect(changed).not.toHaveBeenCalled();
  });
});

describe('deleting a memory item', () => {
  it('asks first, with focus on the delete button, and deletes on confirmation', async () => {
    commands.deleteMemoryItem.mockResolvedValue(undefined);
    show('observation', observation);
    q<HTMLButtonElement>('.memory-delete')!.click();
    await settle();
    const group = q('[role="group"][aria-label="Confirm deletion"]')!;
    expect(group.textContent).toContain('the messages it covers stay archived');
    expect(document.activeElement).toBe(q('.memory-delete-confirm'));
    expect(commands.deleteMemoryItem).not.toHaveBeenCalled();
    q<HTMLButtonElement>('.memory-delete-confirm')!.click();
    await settle();
    expect(commands.deleteMemoryItem).toHaveBeenCalledWith('observation', 'obs-1');
    expect(changed).toHaveBeenCalledTimes(1);
  });

  it('Escape in the question cancels and gives focus back to the delete button', async () => {
    show('reflection', reflection);
    q<HTMLButtonElement>('.memory-delete')!.click();
    await settle();
    expect(q('[role="group"]')!.textContent).not.toContain('stay archived');
    press(q('.memory-delete-confirm')!, 'Escape');
    await settle();
    expect(q('[role="group"]')).toBeNull();
    expect(document.activeElement).toBe(q('.memory-delete'));
    expect(commands.deleteMemoryItem).not.toHaveBeenCalled();
  });

  it('says why a deletion failed and keeps the item', async () => {
    commands.deleteMemoryItem.mockRejectedValue({ code: 'store', message: 'The database is read-only.' });
    show('observation', observation);
    q<HTMLButtonElement>('.memory-delete')!.click();
    await settle();
    q<HTMLButtonElement>('.memory-delete-confirm')!.click();
    await settle();
    expect(q('.item-error')!.textContent).toContain('The database is read-only.');
    expect(q('.content')!.textContent).toContain('Lisbon');
    expect(changed).not.toHaveBeenCalled();
  });
});
