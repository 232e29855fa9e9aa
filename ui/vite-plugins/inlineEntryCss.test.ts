import { describe, expect, it } from 'vitest';
import { inlineStylesheets } from './inlineEntryCss';

const page = (head: string) => `<!doctype html><html><head><title>Lango</title>${head}</head><body></body></html>`;

describe('the start-up stylesheet in index.html', () => {
  it('replaces the link with a style element holding the CSS', () => {
    const html = page('<script type="module" crossorigin src="/assets/index-a.js"></script><link rel="stylesheet" crossorigin href="/assets/index-b.css">');
    const { html: out, inlined } = inlineStylesheets(html, (f) => (f === 'assets/index-b.css' ? '.a{color:red}' : undefined));
    expect(out).toContain('<style>.a{color:red}</style>');
    expect(out).not.toContain('<link');
    expect(out).toContain('src="/assets/index-a.js"');
    expect(inlined).toEqual(['assets/index-b.css']);
  });

  it('keeps the link of a stylesheet it was not given', () => {
    const html = page('<link rel="stylesheet" crossorigin href="/assets/other.css">');
    const { html: out, inlined } = inlineStylesheets(html, () => undefined);
    expect(out).toBe(html);
    expect(inlined).toEqual([]);
  });

  it('keeps the link when the CSS could close the element early', () => {
    const html = page('<link rel="stylesheet" crossorigin href="/assets/index-b.css">');
    const { html: out, inlined } = inlineStylesheets(html, () => '.a::after{content:"</style><script>x</script>"}');
    expect(out).toBe(html);
    expect(inlined).toEqual([]);
  });
});
