// Mounted (npm run test:dom): a message shown before the Markdown renderer's chunk has loaded
// shows its text at once, then formatted; an assistant message with code shown before the
// highlighter's chunk has loaded (a conversation opened right after start-up) shows the code
// at once as plain text, and highlighted as soon as the chunk is in, without being opened again.
import { afterEach, describe, expect, it } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { highlighterLoaded, loadHighlighter } from '../../lib/markdown';
import { loadMarkdown, markdownRenderer } from '../../lib/markdownLoader';

const { default: Markdown } = await import('./Markdown.svelte');

let cleanup: (() => void) | null = null;
afterEach(() => cleanup?.());

describe('a message shown before the Markdown renderer has loaded', () => {
  it('shows its text at once as it is, then formatted in place', async () => {
    expect(markdownRenderer()).toBeNull();
    const target = document.createElement('div');
    document.body.append(target);
    const source = '**Bold** and <img src=x onerror=alert(1)>';
    const component = mount(Markdown, { target, props: { source } });
    cleanup = () => {
      unmount(component);
      target.remove();
    };
    flushSync();
    expect(target.querySelector('.md')?.textContent).toBe(source);
    expect(target.querySelector('strong, img')).toBeNull();

    await loadMarkdown();
    await Promise.resolve();
    flushSync();
    expect(target.querySelector('.md strong')?.textContent).toBe('Bold');
    expect(target.querySelector('.md img')?.getAttribute('onerror')).toBeNull();
    expect(target.querySelector('.plain')).toBeNull();
  });
});

describe('a message with code, shown before the highlighter has loaded', () => {
  it('shows the code as plain text at once, then highlighted in place', async () => {
    await loadMarkdown();
    expect(highlighterLoaded()).toBe(false);
    const target = document.createElement('div');
    document.body.append(target);
    const component = mount(Markdown, { target, props: { source: 'Run:\n\n```rust\nfn main() {}\n```' } });
    cleanup = () => {
      unmount(component);
      target.remove();
    };
    flushSync();
    const code = () => target.querySelector('pre > code');
    expect(code()?.textContent).toBe('fn main() {}');
    expect(code()?.querySelector('.hljs-keyword')).toBeNull();

    await loadHighlighter();
    await Promise.resolve();
    flushSync();
    expect(code()?.querySelector('.hljs-keyword')?.textContent).toBe('fn');
    expect(code()?.textContent).toBe('fn main() {}');
  });
});
