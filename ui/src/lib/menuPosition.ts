/**
 * Where a fixed-position popup menu goes: under its "…" button, right-aligned with it, or at
 * the pointer for a right-click; flipped up or left when it would leave the window.
 */

export interface MenuSize {
  width: number;
  height: number;
}

export interface Viewport {
  width: number;
  height: number;
}

/** The "…" button's box, or the point where the user right-clicked. */
export type MenuAnchor = { kind: 'button'; rect: { top: number; bottom: number; right: number } } | { kind: 'point'; x: number; y: number };

const MARGIN = 8;
const GAP = 4;

/** The menu's CSS position (`left` plus `top` or `bottom`). */
export function menuPosition(anchor: MenuAnchor, menu: MenuSize, view: Viewport): string {
  if (anchor.kind === 'point') {
    const left = Math.max(MARGIN, Math.min(anchor.x, view.width - menu.width - MARGIN));
    const up = anchor.y + menu.height > view.height - MARGIN;
    return up ? `left:${left}px; bottom:${Math.max(MARGIN, view.height - anchor.y)}px;` : `left:${left}px; top:${anchor.y}px;`;
  }
  const { rect } = anchor;
  const up = rect.bottom + menu.height > view.height - MARGIN;
  const left = Math.max(MARGIN, rect.right - menu.width);
  return up ? `left:${left}px; bottom:${view.height - rect.top + GAP}px;` : `left:${left}px; top:${rect.bottom + GAP}px;`;
}
