/**
 * Top-level navigation: which view is shown. A pure reducer so the rules (including the
 * keyboard behaviour of the tab list) are unit-tested without a DOM.
 */

export const VIEWS = ['chat', 'memory', 'settings'] as const;
export type View = (typeof VIEWS)[number];

export const VIEW_LABELS: Record<View, string> = {
  chat: 'Chat',
  memory: 'Memory',
  settings: 'Settings',
};

export interface NavState {
  readonly view: View;
}

export type NavAction =
  /** A tab was clicked, or a link such as "Open settings". */
  | { type: 'select'; view: View }
  /** The sidebar's "New chat" button. */
  | { type: 'newChat' }
  /** A key pressed while a tab has focus (WAI-ARIA tabs pattern). */
  | { type: 'key'; key: string };

export const initialNav: NavState = { view: 'chat' };

export function isView(value: unknown): value is View {
  return typeof value === 'string' && (VIEWS as readonly string[]).includes(value);
}

/**
 * Returns the view a tab-list key moves to, or null if the key does not navigate.
 * Arrow keys wrap around; Home and End jump to the first and last tab.
 */
export function viewForKey(current: View, key: string): View | null {
  const i = VIEWS.indexOf(current);
  switch (key) {
    case 'ArrowRight':
    case 'ArrowDown':
      return VIEWS[(i + 1) % VIEWS.length];
    case 'ArrowLeft':
    case 'ArrowUp':
      return VIEWS[(i - 1 + VIEWS.length) % VIEWS.length];
    case 'Home':
      return VIEWS[0];
    case 'End':
      return VIEWS[VIEWS.length - 1];
    default:
      return null;
  }
}

/** Next state; returns `state` itself when nothing changes, so callers can skip re-renders. */
export function navReducer(state: NavState, action: NavAction): NavState {
  let next: View | null;
  switch (action.type) {
    case 'select':
      next = isView(action.view) ? action.view : null;
      break;
    case 'newChat':
      next = 'chat';
      break;
    case 'key':
      next = viewForKey(state.view, action.key);
      break;
    default:
      next = null;
  }
  return next === null || next === state.view ? state : { view: next };
}
