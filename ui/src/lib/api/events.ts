/**
 * Backend events the UI listens to. `memory`: status and "memory updated" events of every
 * session (the Rust shell forwards the engine's memory channel). `menu`: an item of the
 * macOS menu bar the UI acts on (`settings`: Settings…, ⌘,).
 */

import { listen, type Event, type UnlistenFn } from '@tauri-apps/api/event';
import type { DragDropEvent } from '@tauri-apps/api/webview';
import type { MemoryEvent } from './types';

export function onMemoryEvent(handler: (event: MemoryEvent) => void): Promise<UnlistenFn> {
  return listen<MemoryEvent>('memory', (e) => handler(e.payload));
}

/**
 * A listener for `onMount`: starts it now and returns the cleanup, which also stops a listener
 * that is only set up after the component is gone. A listener that cannot start is ignored.
 */
export function whileMounted(start: () => Promise<UnlistenFn>): () => void {
  let unlisten: UnlistenFn | null = null;
  let disposed = false;
  try {
    start()
      .then((un) => {
        if (disposed) un();
        else unlisten = un;
      })
      .catch(() => undefined);
  } catch {
    // No event bridge (the UI opened outside the app): nothing to listen to.
  }
  return () => {
    disposed = true;
    unlisten?.();
  };
}

export type MenuAction = 'settings';

export function onMenuAction(handler: (action: MenuAction) => void): Promise<UnlistenFn> {
  return listen<MenuAction>('menu', (e) => handler(e.payload));
}

/** A file drag over the window, from Tauri's own drag and drop (which gives paths). */
export type FileDrag = { type: 'enter'; paths: string[] } | { type: 'over' } | { type: 'drop'; paths: string[] } | { type: 'leave' };

/** Files dragged over and dropped on the window: the chat attaches them. */
export function onFileDrag(handler: (drag: FileDrag) => void): Promise<UnlistenFn> {
  return onDragDrop((e) => {
    const p = e.payload;
    if (p.type === 'enter' || p.type === 'drop') handler({ type: p.type, paths: p.paths });
    else handler({ type: p.type });
  });
}

/**
 * Files dropped on the window (Tauri's own drag and drop, which gives their paths): the
 * import takes a dropped export. Hover events are left out.
 */
export function onFilesDropped(handler: (paths: string[]) => void): Promise<UnlistenFn> {
  return onDragDrop((e) => {
    if (e.payload.type === 'drop') handler(e.payload.paths);
  });
}

/**
 * Tauri's drag and drop for this webview. Its API (the webview and window modules, ~16 KB)
 * is a chunk of its own, loaded when a view first listens: the start-up bundle is what the
 * window's first paint waits for, and no file can be dropped before the window is shown.
 */
async function onDragDrop(handler: (event: Event<DragDropEvent>) => void): Promise<UnlistenFn> {
  const { getCurrentWebview } = await import('@tauri-apps/api/webview');
  return getCurrentWebview().onDragDropEvent(handler);
}
