// Runs `lango-fake-provider` (crates/lango-testkit) for a desktop e2e test: a real HTTP
// server speaking the providers' wire formats, scripted turn by turn. It prints one line per
// request it receives and per connection the client closed early; we collect both so tests
// can check what the app sent and that "stop" really closed the connection.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { REPO_ROOT, waitFor } from './webdriver.mjs';

export const FAKE_PROVIDER_BIN =
  process.env.FAKE_PROVIDER_BIN ?? resolve(REPO_ROOT, 'target', 'debug', 'lango-fake-provider');

export async function startFakeProvider(script, dir) {
  const scriptFile = join(dir, 'fake-provider-script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  const child = spawn(FAKE_PROVIDER_BIN, ['--port', '0', '--script', scriptFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const state = { url: null, requests: [], closedEarly: 0, stderr: '' };
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith('listening on ')) state.url = line.slice('listening on '.length).trim();
      else if (line.startsWith('request ')) state.requests.push(JSON.parse(line.slice(8)));
      else if (line.startsWith('closed_early ')) state.closedEarly = Number(line.slice(13));
    }
  });
  child.stderr.on('data', (chunk) => (state.stderr += chunk.toString()));
  await waitFor(() => state.url, { timeout: 10_000, what: `fake provider to listen (${state.stderr})` });
  return {
    get url() {
      return state.url;
    },
    /** Generate requests (chat calls), parsed, in arrival order. */
    chatRequests() {
      return state.requests
        .filter((r) => r.method === 'POST' && r.path.includes('/chat/completions'))
        .map((r) => JSON.parse(r.body));
    },
    /**
     * The last chat request, once its messages show `pattern`: the fake reports what it
     * received every 50 ms, so the request behind a reply already shown can still be on its
     * way here. Times out (failing the test) if no such request comes.
     */
    async lastChatRequestShowing(pattern, timeout = 5_000) {
      return waitFor(
        () => {
          const last = this.chatRequests().at(-1);
          return last && pattern.test(JSON.stringify(last.messages)) ? last : null;
        },
        { timeout, what: `a chat request showing ${pattern}` },
      );
    },
    get requests() {
      return state.requests;
    },
    get closedEarly() {
      return state.closedEarly;
    },
    stop() {
      child.kill('SIGTERM');
    },
  };
}
