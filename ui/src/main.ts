import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { shellMounted } from './lib/api/commands';
import { refuseStrayDrops } from './lib/attachments';
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
// When the window's first frames begin: `make perf` prints how long the first two took (the
// shell's paint, which a blurred shadow once doubled).
let frame = 0;
const markFrame = () => {
  performance.mark(`lango:frame-${frame}`);
  if (++frame < 3) requestAnimationFrame(markFrame);
};
requestAnimationFrame(markFrame);
// The window is created hidden and usually shown already (WebKitGTK reports the load as
// finished once the document arrived, src-tauri/src/reveal.rs); if not, it is shown now.
void shellMounted().catch(() => undefined);

export default app;
