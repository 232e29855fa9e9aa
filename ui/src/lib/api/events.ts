/**
 * Backend events the UI listens to. `memory`: status and "memory updated" events of every
 * session (the Rust shell forwards the engine's memory channel).
 */

import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import type { MemoryEvent } from './types';

export function onMemoryEvent(handler: (event: MemoryEvent) => void): Promise<UnlistenFn> {
  return listen<MemoryEvent>('memory', (e) => handler(e.payload));
}
