/**
 * Math in replies: TeX between `$…$` / `\(…\)` (inline) and `$$…$$` / `\[…\]` (display).
 *
 * Markdown rendering only marks the TeX (a `<span class="lango-math">` holding the escaped
 * source, `lango-math-block` for display math), so the sanitiser sees plain text and a
 * class it allows. The message component then typesets the marks with KaTeX, loaded on
 * first use so the app's start does not pay for it. KaTeX runs with `trust: false` (no
 * `\href`, `\url`, `\htmlClass`…) and `throwOnError: false` (bad TeX shows as red source,
 * never an exception), and its own output is the only HTML it adds.
 */

import type { TokenizerAndRendererExtension, Tokens } from 'marked';

export const MATH_CLASS = 'lango-math';
export const MATH_BLOCK_CLASS = 'lango-math-block';

interface MathToken extends Tokens.Generic {
  text: string;
  display: boolean;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function mark(token: Tokens.Generic): string {
  const { text, display } = token as MathToken;
  const cls = display ? `${MATH_CLASS} ${MATH_BLOCK_CLASS}` : MATH_CLASS;
  const tag = display ? 'div' : 'span';
  return `<${tag} class="${cls}">${escapeText(text.trim())}</${tag}>${display ? '\n' : ''}`;
}

/**
 * `$…$` is math only when it looks like math, not money: the opening `$` is followed by a
 * non-space, the closing one follows a non-space and is not followed by a digit
 * ("costs $5 and $10" stays text), and it stays on one line.
 */
const INLINE_RULES: Array<[RegExp, boolean]> = [
  [/^\$\$(?!\$)([\s\S]+?)\$\$/, true],
  [/^\\\[([\s\S]+?)\\\]/, true],
  [/^\\\(([\s\S]+?)\\\)/, false],
  [/^\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<![\s\\])\$(?!\d)/, false],
];

const inlineMath: TokenizerAndRendererExtension = {
  name: 'mathInline',
  level: 'inline',
  start(src: string) {
    const at = src.search(/\$|\\\(|\\\[/);
    return at < 0 ? undefined : at;
  },
  tokenizer(src: string) {
    for (const [rule, display] of INLINE_RULES) {
      const m = rule.exec(src);
      if (m && m[1].trim()) return { type: 'mathInline', raw: m[0], text: m[1], display };
    }
    return undefined;
  },
  renderer: mark,
};

/** A paragraph of its own: `$$` or `\[` starting a line, closed at the end of a line. */
const BLOCK_RULES: RegExp[] = [
  /^ {0,3}\$\$([\s\S]+?)\$\$[ \t]*(?:\n+|$)/,
  /^ {0,3}\\\[([\s\S]+?)\\\][ \t]*(?:\n+|$)/,
];

const blockMath: TokenizerAndRendererExtension = {
  name: 'mathBlock',
  level: 'block',
  start(src: string) {
    const at = src.search(/^ {0,3}(?:\$\$|\\\[)/m);
    return at < 0 ? undefined : at;
  },
  tokenizer(src: string) {
    for (const rule of BLOCK_RULES) {
      const m = rule.exec(src);
      if (m && m[1].trim()) return { type: 'mathBlock', raw: m[0], text: m[1], display: true };
    }
    return undefined;
  },
  renderer: mark,
};

/** The marked extensions that mark math for [`typesetMath`]. */
export const mathExtensions = [blockMath, inlineMath];

type Katex = typeof import('katex').default;
let katexLoad: Promise<Katex> | null = null;

/** KaTeX and its stylesheet, loaded once, on the first message with math. */
function loadKatex(): Promise<Katex> {
  katexLoad ??= Promise.all([import('katex'), import('katex/dist/katex.min.css')]).then(
    ([module]) => module.default,
  );
  return katexLoad;
}

/** Typesets every math mark under `root` that is not typeset yet. */
export async function typesetMath(root: ParentNode): Promise<number> {
  const marks = Array.from(root.querySelectorAll<HTMLElement>(`.${MATH_CLASS}:not([data-typeset])`));
  if (marks.length === 0) return 0;
  const katex = await loadKatex();
  for (const el of marks) {
    if (el.dataset.typeset || !el.isConnected) continue;
    const tex = el.textContent ?? '';
    el.dataset.typeset = '1';
    el.title = tex;
    katex.render(tex, el, {
      displayMode: el.classList.contains(MATH_BLOCK_CLASS),
      throwOnError: false,
      trust: false,
      strict: 'ignore',
      maxSize: 20,
      maxExpand: 200,
      output: 'htmlAndMathml',
    });
  }
  return marks.length;
}
