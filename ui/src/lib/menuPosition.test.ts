import { describe, expect, it } from 'vitest';
import { menuPosition } from './menuPosition';

const menu = { width: 200, height: 200 };
const view = { width: 1000, height: 700 };

describe('a popup menu', () => {
  it('opens under its "…" button, right-aligned with it', () => {
    const rect = { top: 100, bottom: 130, right: 300 };
    expect(menuPosition({ kind: 'button', rect }, menu, view)).toBe('left:100px; top:134px;');
  });

  it('opens above the button near the bottom of the window', () => {
    const rect = { top: 600, bottom: 630, right: 300 };
    expect(menuPosition({ kind: 'button', rect }, menu, view)).toBe('left:100px; bottom:104px;');
  });

  it('opens at the pointer on a right-click', () => {
    expect(menuPosition({ kind: 'point', x: 50, y: 60 }, menu, view)).toBe('left:50px; top:60px;');
  });

  it('stays inside the window when right-clicked near its right or bottom edge', () => {
    expect(menuPosition({ kind: 'point', x: 990, y: 650 }, menu, view)).toBe('left:792px; bottom:50px;');
  });
});
