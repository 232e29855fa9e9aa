/**
 * Backend events the UI listens to. `memory`: status and "memory updated" events of every
 * session (the Rust shell forwards the engine's memory channel). `menu`: an item of the
 * macOS menu bar the UI acts on (`settings`: Settings…, ⌘,).
 */

import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import type { MemoryEvent } from './types';

export function onMemoryEvent(handler: (event: MemoryEvent) => void): Promise<UnlistenFn> {
  return listen<MemoryEvent>('memory', (e) => handler(e.payload));
}

export type MenuAction = 'settings';

export function onMenuAction(handler: (action: MenuAction) => void): Promise<UnlistenFn> {
  return listen<MenuAction>('menu', (e) => handler(e.payload));
}
