/**
 * A build plugin: the start-up stylesheet goes into `index.html` as a `<style>` element
 * instead of a `<link>` to a file of its own.
 *
 * Why: every file the page asks for at start-up is a round trip through the app's main
 * thread (Tauri's `tauri://` protocol), and WebKit runs the start-up bundle only once its
 * stylesheets are in. Inline, the first screen's style comes with the page: the first
 * contentful paint ~10 ms sooner after navigation (README, "Performance"). The lazily loaded
 * views keep their own CSS files.
 *
 * The policy: `tauri.conf.json` keeps Tauri from adding a nonce for this element to
 * `style-src` (`dangerousDisableAssetCspModification`): with a nonce there, WebKit would
 * ignore the policy's `'unsafe-inline'` and refuse every style attribute and `<style>`
 * element the UI makes at run time (Svelte's transitions, KaTeX's math).
 */

import type { Plugin } from 'vite';

/** What to do with each stylesheet link: its CSS, or undefined to keep the link. */
export type CssOf = (file: string) => string | undefined;

const LINK = /<link rel="stylesheet"(?: crossorigin)? href="\/([^"]+\.css)">/g;

/**
 * `html` with each stylesheet link `cssOf` knows replaced by a `<style>` with its CSS. A CSS
 * text with `</` in it (which could end the element early) keeps its link.
 */
export function inlineStylesheets(html: string, cssOf: CssOf): { html: string; inlined: string[] } {
  const inlined: string[] = [];
  const out = html.replace(LINK, (link, file: string) => {
    const css = cssOf(file);
    if (css === undefined || css.includes('</')) return link;
    inlined.push(file);
    return `<style>${css}</style>`;
  });
  return { html: out, inlined };
}

/** The Vite plugin: inlines the entry's stylesheet and drops its file from the build. */
export function inlineEntryCss(): Plugin {
  return {
    name: 'lango-inline-entry-css',
    apply: 'build',
    enforce: 'post',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return html;
        const result = inlineStylesheets(html, (file) => {
          const asset = bundle[file];
          return asset?.type === 'asset' ? String(asset.source) : undefined;
        });
        for (const file of result.inlined) delete bundle[file];
        return result.html;
      },
    },
  };
}
