// @vitest-environment jsdom
import { beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml, fenceLanguage, highlightCode, loadHighlighter, renderMarkdown, sanitizeHtml } from './markdown';

// The highlighter is a chunk of its own, loaded on demand (markdown.highlighter.test.ts).
beforeAll(() => loadHighlighter());

/** Parses rendered HTML so the tests look at elements, not strings. */
function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

function allAttributes(root: HTMLElement): string[] {
  return Array.from(root.querySelectorAll('*')).flatMap((el) =>
    Array.from(el.attributes).map((a) => `${el.tagName.toLowerCase()}[${a.name}=${a.value}]`),
  );
}

function expectNoScriptSurface(html: string) {
  const root = dom(html);
  expect(root.querySelector('script, iframe, object, embed, form, style, svg, math, base, meta, link')).toBeNull();
  for (const attr of allAttributes(root)) {
    expect(attr).not.toMatch(/^\w+\[on/i);
    expect(attr.toLowerCase()).not.toContain('javascript:');
    expect(attr).not.toMatch(/\[style=/);
  }
}

describe('renderMarkdown', () => {
  it('renders GitHub-flavoured Markdown', () => {
    const root = dom(
      renderMarkdown('# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n~~gone~~'),
    );
    expect(root.querySelector('h1')?.textContent).toBe('Title');
    expect(root.querySelector('strong')?.textContent).toBe('bold');
    expect(root.querySelector('p code')?.textContent).toBe('code');
    expect(root.querySelectorAll('li').length).toBe(2);
    expect(root.querySelector('table td')?.textContent).toBe('1');
    expect(root.querySelector('del')?.textContent).toBe('gone');
    expect(root.querySelector('h1')?.hasAttribute('id')).toBe(false);
  });

  it('renders task lists as read-only checkboxes', () => {
    const root = dom(renderMarkdown('- [x] shipped\n- [ ] tested\n- plain'));
    const boxes = Array.from(root.querySelectorAll<HTMLInputElement>('li > input[type=checkbox]'));
    expect(boxes.map((b) => b.checked)).toEqual([true, false]);
    expect(boxes.every((b) => b.disabled)).toBe(true);
    expect(boxes.map((b) => b.getAttribute('aria-label'))).toEqual(['done', 'not done']);
  });

  it('lets through no input but a disabled checkbox, whatever the model writes', () => {
    const root = dom(
      sanitizeHtml(
        '<input type="text" value="x"><input type="hidden" name="a"><input type="password">' +
          '<input type="checkbox" onclick="x()" name="n" style="color:red" checked>',
      ),
    );
    const inputs = Array.from(root.querySelectorAll('input'));
    expect(inputs.length).toBe(1);
    expect(inputs[0].getAttribute('type')).toBe('checkbox');
    expect(inputs[0].disabled).toBe(true);
    expect(Array.from(inputs[0].attributes).map((a) => a.name).sort()).toEqual([
      'aria-label',
      'checked',
      'disabled',
      'type',
    ]);
  });

  it('highlights fenced code and gives every block a Copy button', () => {
    const html = renderMarkdown('```ts\nconst x: number = 1;\n```\n\ntext\n\n```\nplain <b>\n```');
    const root = dom(html);
    const blocks = root.querySelectorAll('.code-block');
    expect(blocks.length).toBe(2);
    const buttons = root.querySelectorAll('button.copy-code');
    expect(buttons.length).toBe(2);
    expect(buttons[0].getAttribute('type')).toBe('button');
    expect(buttons[0].getAttribute('aria-label')).toBe('Copy ts code');
    expect(buttons[0].textContent).toBe('Copy');
    const first = blocks[0].querySelector('pre > code')!;
    expect(first.className).toContain('language-ts');
    expect(first.querySelector('.hljs-keyword')?.textContent).toBe('const');
    expect(first.textContent).toBe('const x: number = 1;');
    expect(blocks[0].querySelector('.code-lang')?.textContent).toBe('ts');
    // Unknown or missing language: escaped text, no markup from inside the block.
    const second = blocks[1].querySelector('code')!;
    expect(second.textContent).toBe('plain <b>');
    expect(second.querySelector('b')).toBeNull();
  });

  it('opens links outside the app window', () => {
    const a = dom(renderMarkdown('[docs](https://example.com/x) and <https://a.example>')).querySelectorAll('a');
    expect(a.length).toBe(2);
    for (const link of Array.from(a)) {
      expect(link.getAttribute('target')).toBe('_blank');
      expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    }
    expect(a[0].getAttribute('href')).toBe('https://example.com/x');
  });

  it('keeps mailto and in-page links, drops relative and data: ones', () => {
    const root = dom(renderMarkdown('[m](mailto:a@b.c) [h](#top) [r](../secret) [d](data:text/html,<script>alert(1)</script>)'));
    const hrefs = Array.from(root.querySelectorAll('a')).map((a) => a.getAttribute('href'));
    expect(hrefs).toEqual(['mailto:a@b.c', '#top', null, null]);
  });

  it('caches finished messages and returns the same HTML', () => {
    const a = renderMarkdown('cached *text*');
    expect(renderMarkdown('cached *text*')).toBe(a);
    expect(renderMarkdown('cached *text*', false)).toBe(a);
    expect(renderMarkdown('')).toBe('');
  });
});

describe('sanitising model output', () => {
  const payloads: [string, string][] = [
    ['script tag', '<script>alert(1)</script>hello'],
    ['img onerror', '<img src=x onerror="alert(1)">'],
    ['markdown javascript: link', '[x](javascript:alert(1))'],
    ['html javascript: link', '<a href="javascript:alert(1)">click</a>'],
    ['encoded javascript: link', '<a href="jav&#x09;ascript:alert(1)">click</a>'],
    ['svg onload', '<svg onload="alert(1)"><circle r="2"/></svg>'],
    ['iframe', '<iframe src="https://evil.example"></iframe>'],
    ['iframe srcdoc', '<iframe srcdoc="<script>alert(1)</script>"></iframe>'],
    ['form', '<form action="https://evil.example"><input name="q"><button>Go</button></form>'],
    ['style tag', '<style>body{display:none}</style>'],
    ['style attribute', '<p style="position:fixed;inset:0">cover</p>'],
    ['object', '<object data="x.swf"></object><embed src="x">'],
    ['math', '<math><mtext><img src=x onerror=alert(1)></mtext></math>'],
    ['details ontoggle', '<details open ontoggle="alert(1)"><summary>s</summary></details>'],
    ['body onload', '<body onload="alert(1)">'],
    ['meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'],
    ['base href', '<base href="javascript:alert(1)//">'],
    ['markdown image javascript:', '![x](javascript:alert(1))'],
    ['mutation XSS', '<noscript><p title="</noscript><img src=x onerror=alert(1)>">'],
  ];

  for (const [name, payload] of payloads) {
    it(`neutralises ${name}`, () => {
      expectNoScriptSurface(renderMarkdown(payload));
      expectNoScriptSurface(sanitizeHtml(payload));
    });
  }

  it('keeps the harmless text around a removed script', () => {
    const root = dom(renderMarkdown('<script>alert(1)</script>hello'));
    expect(root.textContent).toContain('hello');
    expect(root.textContent).not.toContain('alert');
  });

  it('removes an iframe entirely', () => {
    expect(dom(renderMarkdown('<iframe src="https://evil.example"></iframe>')).querySelector('iframe')).toBeNull();
  });

  it('drops javascript: hrefs but keeps the link text', () => {
    const root = dom(renderMarkdown('[x](javascript:alert(1)) <a href="javascript:alert(2)">y</a>'));
    for (const a of Array.from(root.querySelectorAll('a'))) {
      expect(a.hasAttribute('href')).toBe(false);
      expect(a.hasAttribute('target')).toBe(false);
    }
    expect(root.textContent).toContain('x');
    expect(root.textContent).toContain('y');
  });

  it('never lets the model write buttons, ids, data attributes or app classes', () => {
    const root = dom(
      renderMarkdown(
        '<button id="send-button" class="copy-code primary" onclick="x()">Send</button>' +
          '<div id="composer-input" class="message turn-error" data-seq="1" data-role="user" aria-label="Stop">x</div>',
      ),
    );
    expect(root.querySelector('button')).toBeNull();
    expect(root.querySelector('[id]')).toBeNull();
    expect(root.querySelector('[data-seq], [data-role], [aria-label]')).toBeNull();
    expect(root.querySelector('.message, .turn-error, .primary, .copy-code')).toBeNull();
  });

  it('keeps images to data: and http(s), without a referrer', () => {
    const root = dom(renderMarkdown('![a](https://img.example/a.png) <img src="data:image/png;base64,AAAA">'));
    const imgs = root.querySelectorAll('img');
    expect(imgs.length).toBe(2);
    expect(imgs[0].getAttribute('referrerpolicy')).toBe('no-referrer');
    expect(imgs[1].getAttribute('src')).toMatch(/^data:image\/png/);
  });
});

describe('helpers', () => {
  it('escapes HTML', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('reads the language of a fence', () => {
    expect(fenceLanguage('TypeScript title="a.ts"')).toBe('typescript');
    expect(fenceLanguage('"><script>')).toBe('script');
    expect(fenceLanguage(undefined)).toBe('');
  });

  it('highlights registered languages and aliases only', () => {
    expect(highlightCode('fn main() {}', 'rust')).toContain('hljs-keyword');
    expect(highlightCode('ls -la', 'sh')).not.toContain('<script');
    expect(highlightCode('<b>x</b>', 'brainfuck')).toBe('&lt;b&gt;x&lt;/b&gt;');
  });
});

describe('text direction', () => {
  it('each text block follows its own text, code blocks stay left to right', () => {
    const html = dom(renderMarkdown('مرحبا بك\n\nHello there\n\n- عنصر\n\n> שלום\n\n```js\nlet x = 1;\n```'));
    const dirs = [...html.querySelectorAll('p, li, blockquote')].map((el) => `${el.tagName} ${el.getAttribute('dir')}`);
    expect(dirs).toEqual(['P auto', 'P auto', 'LI auto', 'BLOCKQUOTE auto', 'P auto']);
    expect(html.querySelector('.code-block')?.getAttribute('dir')).toBe('ltr');
  });

  it('a direction the model writes is not kept: the text decides', () => {
    expect(dom(renderMarkdown('<p dir="rtl">x</p>')).querySelector('p')?.getAttribute('dir')).toBe('auto');
  });
});

describe('bold next to Chinese, Japanese and Korean', () => {
  it('closes after full-width punctuation, as models write it, and leaves no marker behind', () => {
    const html = renderMarkdown('**注意：**请先安装。\n\n前面**“引用”**后面\n\n`**代码：**不变`');
    const bold = [...dom(html).querySelectorAll('strong')].map((b) => b.textContent);
    expect(bold).toEqual(['注意：', '“引用”']);
    expect(dom(html).querySelector('code')?.textContent).toBe('**代码：**不变');
    expect(html).not.toContain('\uE000');
  });
});

