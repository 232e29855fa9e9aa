/**
 * App-wide keyboard shortcuts, as a pure function so the mapping is unit-tested.
 * Ctrl (⌘ on macOS) + N new chat, + K search, + , settings, + L focus the composer,
 * + B show or hide the sidebar, + F find in the conversation;
 * Escape stops the reply being written. None while an input method handles the key.
 */

import { isImeKey, type ImeKeyLike } from './ime';

export type ShortcutAction = 'newChat' | 'search' | 'settings' | 'focusComposer' | 'stop' | 'toggleSidebar' | 'find';

export interface KeyLike extends ImeKeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

export function shortcutFor(event: KeyLike): ShortcutAction | null {
  // Escape also drops an IME's candidate: then it must not stop the reply.
  if (isImeKey(event)) return null;
  const mod = event.ctrlKey || event.metaKey;
  if (event.key === 'Escape' && !mod && !event.altKey) return 'stop';
  if (!mod || event.altKey) return null;
  switch (event.key.toLowerCase()) {
    case 'n':
      return 'newChat';
    case 'k':
      return 'search';
    case ',':
      return 'settings';
    case 'l':
      return 'focusComposer';
    case 'b':
      return event.shiftKey ? null : 'toggleSidebar';
    case 'f':
      return event.shiftKey ? null : 'find';
    default:
      return null;
  }
}
