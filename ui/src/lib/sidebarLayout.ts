/**
 * The sidebar's width and whether it is collapsed: clamped to what leaves the chat usable,
 * moved by the splitter's keys, and remembered between starts (a layout preference, kept in
 * the webview's local storage — nothing secret or user-authored goes there).
 */

export interface SidebarLayout {
  width: number;
  collapsed: boolean;
}

export const DEFAULT_WIDTH = 264;
export const MIN_WIDTH = 200;
export const MAX_WIDTH = 520;
/** The chat keeps at least this much of the window. */
const MIN_CHAT = 420;
const STEP = 16;
const STORAGE_KEY = 'lango.sidebar';

export const DEFAULT_LAYOUT: SidebarLayout = { width: DEFAULT_WIDTH, collapsed: false };

/** The widest the sidebar may be in a window `windowWidth` wide. */
export function maxWidth(windowWidth: number): number {
  return Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, windowWidth - MIN_CHAT));
}

export function clampWidth(width: number, windowWidth: number): number {
  if (!Number.isFinite(width)) return DEFAULT_WIDTH;
  return Math.round(Math.min(maxWidth(windowWidth), Math.max(MIN_WIDTH, width)));
}

/** The width after a key on the splitter (arrows move it, Home/End go to the limits); null for other keys. */
export function widthForKey(key: string, width: number, windowWidth: number): number | null {
  switch (key) {
    case 'ArrowLeft':
      return clampWidth(width - STEP, windowWidth);
    case 'ArrowRight':
      return clampWidth(width + STEP, windowWidth);
    case 'Home':
      return MIN_WIDTH;
    case 'End':
      return maxWidth(windowWidth);
    default:
      return null;
  }
}

/** The saved layout, or the default when nothing (or something unreadable) is saved. */
export function loadLayout(storage: Pick<Storage, 'getItem'> | undefined): SidebarLayout {
  try {
    const raw = storage?.getItem(STORAGE_KEY);
    if (!raw) return { ...DEFAULT_LAYOUT };
    const saved = JSON.parse(raw) as Partial<SidebarLayout>;
    return {
      width: typeof saved.width === 'number' ? clampWidth(saved.width, Number.POSITIVE_INFINITY) : DEFAULT_WIDTH,
      collapsed: saved.collapsed === true,
    };
  } catch {
    return { ...DEFAULT_LAYOUT };
  }
}

export function saveLayout(storage: Pick<Storage, 'setItem'> | undefined, layout: SidebarLayout): void {
  try {
    storage?.setItem(STORAGE_KEY, JSON.stringify({ width: layout.width, collapsed: layout.collapsed }));
  } catch {
    // Storage full or unavailable: the layout is only not remembered.
  }
}
