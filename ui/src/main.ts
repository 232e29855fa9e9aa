import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { refuseStrayDrops } from './lib/attachments';
import { loadMarkdown } from './lib/markdownLoader';
import { markPlatform } from './lib/platform';

// Marks for `make perf` (tests/perf/desktop-perf.mjs): where the cold start goes.
performance.mark('lango:bundle-start');
const target = document.getElementById('root');
if (!target) throw new Error('index.html has no #root element');

// A backstop: file drops go to Tauri's own drag and drop (the chat attaches them by path);
// should the webview ever get one, it must not open the file in place of the app.
refuseStrayDrops(window);
// Before the first layout: the fonts depend on it (lib/platform.ts).
markPlatform(document.documentElement, navigator.userAgent);
const app = mount(App, { target });
performance.mark('lango:mounted');

// The Markdown renderer stays out of the start-up bundle (lib/markdownLoader.ts) and loads
// once the window has loaded and is idle, well before a conversation is opened in practice.
window.addEventListener(
  'load',
  () => {
    const warm = () => void loadMarkdown().catch(() => undefined);
    if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(warm, { timeout: 1000 });
    else setTimeout(warm, 200);
  },
  { once: true },
);
export default app;
