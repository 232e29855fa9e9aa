/**
 * Bold and italics that touch Chinese, Japanese or Korean text. CommonMark decides whether a
 * `**` opens or closes by what is on each side, and a closing `**` after punctuation counts
 * only before a space or more punctuation — so `**注意：**请先安装`, as models write it all
 * the time, showed its asterisks (no space ever follows in these languages). The "CJK
 * friendly" amendment proposed for CommonMark (markdown-it-cjk-friendly, remark-cjk-friendly)
 * lets such a run count next to those characters; here the same is done by putting a marker
 * between the punctuation and the run (a private-use character, neither space nor
 * punctuation), which `lib/markdown.ts` removes from the rendered HTML again.
 */

/** The marker: a private-use character, which a text written by anyone never holds. */
export const FLANK_MARK = '\uE000';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const PUNCTUATION = /[\p{P}\p{S}]/u;

/**
 * `source` with the marker put where a run of `*` sits between punctuation and a CJK
 * character: before the run when the punctuation is on its left (it can then close), after
 * it when the punctuation is on its right (it can then open). Everything else is unchanged.
 */
export function flankCjkEmphasis(source: string): string {
  if (!CJK.test(source) || !source.includes('*')) return source;
  const chars = Array.from(source);
  let out = '';
  let i = 0;
  while (i < chars.length) {
    if (chars[i] !== '*') {
      out += chars[i];
      i += 1;
      continue;
    }
    let end = i;
    while (end < chars.length && chars[end] === '*') end += 1;
    const run = chars.slice(i, end).join('');
    const before = chars[i - 1] ?? '';
    const after = chars[end] ?? '';
    if (PUNCTUATION.test(before) && CJK.test(after)) out += FLANK_MARK + run;
    else if (CJK.test(before) && PUNCTUATION.test(after)) out += run + FLANK_MARK;
    else out += run;
    i = end;
  }
  return out;
}
