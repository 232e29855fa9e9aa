// Mounted (npm run test:dom): the virtual message list opening a long conversation whose rows
// are shorter than the list's estimate, as a first open is (no row measured yet). jsdom has no
// layout, so the scroller gets the one piece of it that matters here: the browser clamps
// `scrollTop` to the real content height (padding + rows as they really are).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRawSnippet, flushSync, mount, unmount } from 'svelte';

const { default: MessageList } = await import('./MessageList.svelte');

const VIEWPORT = 600;
/** What a row really measures; the list estimates 140 px until it has measured one. */
const REAL_ROW = 50;

const scrollTops = new WeakMap<Element, number>();
const isScroller = (el: Element) => el.classList.contains('scroller');
const px = (value: string) => Number.parseFloat(value) || 0;

/** The real content height: the list's padding plus its rendered rows at their real height. */
function contentHeight(scroller: Element): number {
  const inner = scroller.querySelector<HTMLElement>('.inner');
  if (!inner) return 0;
  const rows = inner.querySelectorAll('.row').length;
  return px(inner.style.paddingTop) + px(inner.style.paddingBottom) + rows * REAL_ROW;
}

function layoutOn(proto: object, name: string, get: (el: Element) => number, set?: (el: Element, v: number) => void) {
  const original = Object.getOwnPropertyDescriptor(proto, name);
  Object.defineProperty(proto, name, {
    configurable: true,
    get(this: Element) {
      return isScroller(this) ? get(this) : original?.get?.call(this);
    },
    set(this: Element, value: number) {
      if (isScroller(this) && set) set(this, value);
      else original?.set?.call(this, value);
    },
  });
  return () => original && Object.defineProperty(proto, name, original);
}

const restore = [
  layoutOn(Element.prototype, 'clientHeight', () => VIEWPORT),
  layoutOn(Element.prototype, 'scrollHeight', (el) => Math.max(VIEWPORT, contentHeight(el))),
  layoutOn(
    Element.prototype,
    'scrollTop',
    (el) => scrollTops.get(el) ?? 0,
    (el, v) => scrollTops.set(el, Math.max(0, Math.min(v, contentHeight(el) - VIEWPORT))),
  ),
];

afterAll(() => restore.forEach((undo) => undo()));

let app: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (app) unmount(app);
  app = null;
  document.body.innerHTML = '';
});

describe('the message list opening a long conversation', () => {
  it('renders the newest rows once instead of swapping rows in and out while the browser clamps the scroll', () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ key: `m${i}` }));
    let renders = 0;
    const row = createRawSnippet((item: () => { key: string }) => ({
      render: () => `<div class="message">${item().key}</div>`,
      setup: () => {
        renders += 1;
      },
    }));
    const target = document.createElement('div');
    document.body.append(target);
    app = mount(MessageList, { target, props: { items, row, label: 'Messages' } });
    flushSync();

    const shown = [...target.querySelectorAll<HTMLElement>('.row')].map((r) => r.dataset.key);
    // The newest message is on screen, and each row was laid out about once, not in a loop.
    expect(shown.at(-1)).toBe('m99');
    expect(renders).toBeLessThanOrEqual(2 * shown.length);
  });
});
