// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown';
import { typesetMath } from './math';

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  document.body.append(div);
  return div;
}

describe('math in replies', () => {
  it('marks inline and display TeX in every common notation', () => {
    const root = dom(
      renderMarkdown('Euler: $e^{i\\pi}+1=0$ and \\(a^2\\).\n\n$$\n\\int_0^1 x\\,dx\n$$\n\n\\[ \\sum_i i \\]'),
    );
    const inline = Array.from(root.querySelectorAll('span.lango-math')).map((e) => e.textContent);
    const blocks = Array.from(root.querySelectorAll('div.lango-math-block')).map((e) => e.textContent);
    expect(inline).toEqual(['e^{i\\pi}+1=0', 'a^2']);
    expect(blocks).toEqual(['\\int_0^1 x\\,dx', '\\sum_i i']);
  });

  it('leaves prices, code and escaped dollars as text', () => {
    const root = dom(renderMarkdown('It costs $5 and $10.\n\n`$x$` and\n\n```\n$$ y $$\n```'));
    expect(root.querySelector('.lango-math')).toBeNull();
    expect(root.textContent).toContain('It costs $5 and $10.');
  });

  it('keeps TeX as text, so HTML inside it is never markup', () => {
    const root = dom(renderMarkdown('$<img src=x onerror=alert(1)>$'));
    expect(root.querySelector('img')).toBeNull();
  });

  it('typesets the marks with KaTeX, keeping the source as a tooltip', async () => {
    const root = dom(renderMarkdown('Area $\\pi r^2$\n\n$$\\frac{a}{b}$$'));
    expect(await typesetMath(root)).toBe(2);
    const inline = root.querySelector<HTMLElement>('span.lango-math')!;
    expect(inline.querySelector('.katex')).not.toBeNull();
    expect(inline.title).toBe('\\pi r^2');
    expect(root.querySelector('.lango-math-block .katex-display')).not.toBeNull();
    expect(await typesetMath(root)).toBe(0);
  });

  it('shows bad TeX as its source instead of failing', async () => {
    const root = dom(renderMarkdown('Broken $\\frac{a$ here'));
    await typesetMath(root);
    expect(root.textContent).toContain('Broken');
    expect(root.querySelector('.lango-math')?.textContent).toContain('\\frac{a');
  });

  it('does not run TeX commands that link or add HTML', async () => {
    const root = dom(renderMarkdown('$\\href{javascript:alert(1)}{x}$ $\\htmlClass{app}{y}$'));
    await typesetMath(root);
    expect(root.querySelector('a')).toBeNull();
    expect(root.querySelector('.app')).toBeNull();
  });
});
