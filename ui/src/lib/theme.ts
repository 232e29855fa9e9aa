/**
 * Applies the appearance setting: `system` follows the OS (prefers-color-scheme), `light` and
 * `dark` force one. The CSS reads `data-theme` on the root element.
 */

export type Theme = 'system' | 'light' | 'dark';

export function resolveTheme(theme: Theme, prefersDark: boolean): 'light' | 'dark' {
  if (theme === 'light' || theme === 'dark') return theme;
  return prefersDark ? 'dark' : 'light';
}

export function applyTheme(theme: Theme): void {
  const prefersDark =
    typeof window !== 'undefined' && window.matchMedia?.('(prefers-color-scheme: dark)').matches;
  document.documentElement.dataset.theme = resolveTheme(theme, Boolean(prefersDark));
}
