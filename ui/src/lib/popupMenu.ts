/**
 * What a floating menu of actions does (a sidebar row's "⋯" menu, a reply's "Regenerate
 * with"), the WAI-ARIA menu pattern: arrows, Home and End move the focus among its items
 * (wrapping), Escape closes it with the focus back on its button, Tab closes it as the focus
 * moves on; and it closes when the pointer goes down elsewhere, the window resizes or loses
 * focus, or the list it belongs to scrolls. Its look is `components/popupMenu.css`.
 */

/** The menu's items, in order. */
function menuItems(menu: HTMLElement | undefined): HTMLElement[] {
  return menu ? Array.from(menu.querySelectorAll<HTMLElement>('[role="menuitem"]')) : [];
}

/** Focuses item `index` of `menu`; a negative index counts from the end, past either end wraps. */
export function focusMenuItem(menu: HTMLElement | undefined, index: number) {
  const items = menuItems(menu);
  if (items.length > 0) items[(index + items.length) % items.length].focus();
}

/** A key pressed in an open menu; `close(refocus)` closes it (refocus: back to its button). */
export function onMenuKey(e: KeyboardEvent, menu: HTMLElement | undefined, close: (refocus: boolean) => void) {
  const index = menuItems(menu).indexOf(document.activeElement as HTMLElement);
  const moves: Record<string, number> = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: -1 };
  if (e.key in moves) {
    e.preventDefault();
    focusMenuItem(menu, moves[e.key]);
  } else if (e.key === 'Escape') {
    e.preventDefault();
    e.stopPropagation();
    close(true);
  } else if (e.key === 'Tab') {
    close(false);
  }
}

/**
 * Calls `close` when the pointer goes down outside the menu and its button, the window
 * resizes or loses focus, or `scroller` scrolls (the menu is fixed, the list moves under it).
 * Returns what stops listening, for an `$effect`.
 */
export function closeWhenElsewhere(
  menu: () => HTMLElement | undefined,
  trigger: HTMLElement | undefined,
  close: () => void,
  scroller: Element | null = null,
): () => void {
  const outside = (e: Event) => {
    const target = e.target as Node | null;
    if (target && (menu()?.contains(target) || trigger?.contains(target))) return;
    close();
  };
  window.addEventListener('pointerdown', outside, true);
  window.addEventListener('resize', close);
  window.addEventListener('blur', close);
  scroller?.addEventListener('scroll', close);
  return () => {
    window.removeEventListener('pointerdown', outside, true);
    window.removeEventListener('resize', close);
    window.removeEventListener('blur', close);
    scroller?.removeEventListener('scroll', close);
  };
}
