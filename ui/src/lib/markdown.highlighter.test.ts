// @vitest-environment jsdom
// The highlighter is not part of the start-up bundle: code renders plain until it has
// loaded, and highlighted after, even for a message rendered (and cached) before.
import { describe, expect, it } from 'vitest';
import { highlighterLoaded, loadHighlighter, renderMarkdown } from './markdown';

const CODE = '```rust\nfn main() {}\n```';

describe('the code highlighter, loaded on demand', () => {
  it('renders code as plain escaped text before it has loaded, then highlighted', async () => {
    expect(highlighterLoaded()).toBe(false);
    const before = renderMarkdown(CODE);
    expect(before).toContain('fn main() {}');
    expect(before).not.toContain('hljs-keyword');
    await loadHighlighter();
    expect(highlighterLoaded()).toBe(true);
    const after = renderMarkdown(CODE);
    expect(after).toContain('hljs-keyword');
    expect(after.replace(/<[^>]+>/g, '')).toContain('fn main() {}');
  });
});
