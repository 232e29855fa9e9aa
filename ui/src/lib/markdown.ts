/**
 * Assistant messages as HTML: Markdown (marked, GitHub flavour) → highlighted code blocks
 * (lib/highlight.ts, loaded when a message with code is first shown) → sanitised (DOMPurify).
 *
 * Model output is untrusted and this webview can call backend commands, so the sanitiser is
 * strict: the HTML profile only (no SVG/MathML), no scripts, frames, forms, buttons, styles,
 * media or `<base>`/`<meta>`, and no inputs but task lists' read-only checkboxes; no event handlers, `style`, `id`, `name` or `data-*`
 * attributes; class names limited to highlight.js's; URLs limited to http(s), mailto and
 * in-page anchors (images also data:). Links open outside the app's window
 * (`target="_blank" rel="noopener noreferrer"`).
 *
 * Code blocks get a header with their language and a Copy button, added after sanitising
 * (so the model can never write its own buttons). The button has class `copy-code`; the
 * component that shows the HTML handles its clicks. Math is only marked here (lib/math.ts);
 * the component typesets it with KaTeX. Each text block takes its direction from its own
 * text (`dir="auto"`), so right-to-left paragraphs read as such; code stays left to right.
 * Bold and italics next to Chinese, Japanese or Korean count as CommonMark's proposed
 * "CJK friendly" rules have them (lib/cjkEmphasis.ts).
 */

import { Marked, type Tokens } from 'marked';
import DOMPurify, { type Config, type DOMPurify as Purifier } from 'dompurify';
import { FLANK_MARK, flankCjkEmphasis } from './cjkEmphasis';
import { mathExtensions } from './math';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/** The language name of a fence's info string ("ts title=x" → "ts"), safe for a class. */
export function fenceLanguage(info: string | undefined): string {
  const first = (info ?? '').trim().split(/\s+/)[0] ?? '';
  return first.toLowerCase().replace(/[^a-z0-9_+#.-]/g, '').slice(0, 32);
}

type Highlighter = typeof import('./highlight');
let highlighter: Highlighter | null = null;
let highlighterLoad: Promise<void> | null = null;

/**
 * Loads the code highlighter (lib/highlight.ts, a chunk of its own) once. When it is in, the
 * render cache is dropped, so code rendered plain before renders highlighted next time.
 */
export function loadHighlighter(): Promise<void> {
  highlighterLoad ??= import('./highlight').then(
    (module) => {
      highlighter = module;
      cache.clear();
    },
    (e: unknown) => {
      // Code stays plain text; the next message with code shown asks again.
      highlighterLoad = null;
      throw e;
    },
  );
  return highlighterLoad;
}

/** Whether code renders highlighted yet (see [`loadHighlighter`]). */
export function highlighterLoaded(): boolean {
  return highlighter !== null;
}

/**
 * Highlighted HTML of `code` when `lang` is a registered language, else the escaped code;
 * the escaped code until the highlighter has loaded (`Markdown.svelte` loads it when a
 * message with code is shown).
 */
export function highlightCode(code: string, lang: string): string {
  const html = lang && highlighter ? highlighter.highlight(code, lang) : null;
  return html ?? escapeHtml(code);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const language = fenceLanguage(lang);
      const body = highlightCode(text.replace(/\n$/, ''), language);
      const cls = language ? `hljs language-${language}` : 'hljs';
      return `<pre><code class="${cls}">${body}</code></pre>\n`;
    },
    // GFM task lists: a read-only checkbox, the only input the sanitiser lets through.
    checkbox({ checked }: Tokens.Checkbox): string {
      return `<input type="checkbox" disabled${checked ? ' checked' : ''}> `;
    },
  },
  extensions: mathExtensions,
});

const FORBID_TAGS = [
  'script',
  'style',
  'link',
  'meta',
  'base',
  'title',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'form',
  'button',
  'textarea',
  'select',
  'option',
  'optgroup',
  'label',
  'fieldset',
  'dialog',
  'template',
  'slot',
  'video',
  'audio',
  'source',
  'track',
  'picture',
  'canvas',
  'map',
  'area',
  'marquee',
];

const FORBID_ATTR = [
  'style',
  'id',
  'name',
  'form',
  'formaction',
  'action',
  'srcset',
  'ping',
  'background',
  'poster',
  'autofocus',
  'tabindex',
  'contenteditable',
  'accesskey',
  'usemap',
];

/** http(s), mailto and in-page anchors. Anything else (javascript:, data:, relative) goes. */
const ALLOWED_URI = /^(?:(?:https?|mailto):|#)/i;
const SAFE_CLASS = /^(?:hljs(?:-[a-z0-9_-]+)?|language-[a-z0-9_+#.-]+|[a-z]+_|lango-math(?:-block)?)$/i;

const CONFIG: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS,
  FORBID_ATTR,
  ALLOWED_URI_REGEXP: ALLOWED_URI,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  SANITIZE_DOM: true,
  KEEP_CONTENT: true,
};

let purifier: Purifier | null = null;

function getPurifier(): Purifier {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook('uponSanitizeAttribute', (_node, data) => {
    if (data.attrName === 'class') {
      const kept = data.attrValue
        .split(/\s+/)
        .filter((c) => c && SAFE_CLASS.test(c))
        .join(' ');
      if (kept) data.attrValue = kept;
      else data.keepAttr = false;
    }
  });
  // Task-list boxes only: any other input (text fields, buttons, hidden ones) goes.
  p.addHook('uponSanitizeElement', (node, data) => {
    if (data.tagName === 'input') {
      const el = node as Element;
      if (el.getAttribute('type')?.toLowerCase() !== 'checkbox') el.remove();
    }
  });
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'INPUT') {
      const checked = (node as Element).hasAttribute('checked');
      for (const attr of Array.from((node as Element).attributes)) node.removeAttribute(attr.name);
      node.setAttribute('type', 'checkbox');
      node.setAttribute('disabled', '');
      if (checked) node.setAttribute('checked', '');
      node.setAttribute('aria-label', checked ? 'done' : 'not done');
    } else if (node.nodeName === 'A') {
      const a = node as HTMLAnchorElement;
      if (a.hasAttribute('href')) {
        a.setAttribute('target', '_blank');
        a.setAttribute('rel', 'noopener noreferrer');
      } else {
        a.removeAttribute('target');
      }
    } else if (node.nodeName === 'IMG') {
      node.setAttribute('referrerpolicy', 'no-referrer');
      node.setAttribute('loading', 'lazy');
    }
  });
  purifier = p;
  return p;
}

/** Any HTML string, sanitised by the rules above (for tests and other callers). */
export function sanitizeHtml(html: string): string {
  return getPurifier().sanitize(html, { ...CONFIG, RETURN_TRUSTED_TYPE: false }) as string;
}

/** Wraps each `<pre><code>` in a block with a language label and a Copy button. */
function decorateCodeBlocks(root: DocumentFragment): void {
  const doc = root.ownerDocument ?? document;
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    const code = pre.querySelector(':scope > code');
    if (!code) continue;
    const langClass = Array.from(code.classList).find((c) => c.startsWith('language-'));
    const lang = langClass ? langClass.slice('language-'.length) : '';
    if (!code.classList.contains('hljs')) code.classList.add('hljs');

    const block = doc.createElement('div');
    block.className = 'code-block';
    const head = doc.createElement('div');
    head.className = 'code-head';
    const label = doc.createElement('span');
    label.className = 'code-lang';
    label.textContent = lang || 'text';
    const copy = doc.createElement('button');
    copy.type = 'button';
    copy.className = 'copy-code';
    copy.setAttribute('aria-label', lang ? `Copy ${lang} code` : 'Copy code');
    copy.textContent = 'Copy';
    head.append(label, copy);
    pre.replaceWith(block);
    block.append(head, pre);
  }
}

/** Blocks whose direction follows their own text (`dir="auto"`): a paragraph in Arabic,
 *  Hebrew or Persian reads right to left, the English one after it left to right. */
const TEXT_BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, blockquote, td, th, dt, dd';

/** Sets each text block's direction from its text; code blocks stay left to right. */
function directBlocks(root: DocumentFragment): void {
  for (const block of Array.from(root.querySelectorAll(TEXT_BLOCKS))) {
    block.setAttribute('dir', 'auto');
  }
  for (const code of Array.from(root.querySelectorAll('.code-block'))) code.setAttribute('dir', 'ltr');
}

function render(source: string): string {
  // Bold next to Chinese, Japanese or Korean (lib/cjkEmphasis.ts); its marker goes again.
  const raw = (marked.parse(flankCjkEmphasis(source)) as string).replaceAll(FLANK_MARK, '');
  const fragment = getPurifier().sanitize(raw, { ...CONFIG, RETURN_DOM_FRAGMENT: true });
  decorateCodeBlocks(fragment);
  directBlocks(fragment);
  const holder = document.createElement('div');
  holder.append(fragment);
  return holder.innerHTML;
}

const CACHE_SIZE = 400;
const cache = new Map<string, string>();

/**
 * Markdown → safe HTML. Finished messages are cached (the virtual list mounts the same rows
 * again and again while scrolling); pass `cacheable: false` for text still streaming.
 */
export function renderMarkdown(source: string, cacheable = true): string {
  if (!source) return '';
  if (cacheable) {
    const hit = cache.get(source);
    if (hit !== undefined) {
      cache.delete(source);
      cache.set(source, hit);
      return hit;
    }
  }
  let html: string;
  try {
    html = render(source);
  } catch {
    html = `<p>${escapeHtml(source)}</p>`;
  }
  if (cacheable) {
    cache.set(source, html);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  return html;
}
