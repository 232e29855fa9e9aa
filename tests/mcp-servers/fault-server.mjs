// A real MCP server on the official TypeScript SDK that misbehaves on purpose, for Lango's
// tests of what a careless or broken server must not do to a conversation.
//   node fault-server.mjs [--garbage] [--hang-init] [--exit-at-start] [--stderr-not-utf8]
//   node fault-server.mjs --http [--json] [--require-token T]
//                                           (Streamable HTTP on $PORT, stateless; answers as
//                                            SSE events, or as JSON bodies with --json; a call
//                                            of "bad_gateway" gets a proxy's HTML 502, one of
//                                            "cut_stream" an event stream cut mid-way; with
//                                            --require-token, 401 without "Bearer T")
// Tools: echo, big (n bytes of text), shout (n bytes to stderr), sleep (ms; logs a cancellation to $FAULT_LOG),
// crash (exits mid-call), add_tool (adds a tool: the SDK sends tools/list_changed),
// env (the names of its environment variables), image (a tiny PNG).
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer } from 'node:http';
import { z } from 'zod';

const args = new Set(process.argv.slice(2));
const log = (line) => process.env.FAULT_LOG && appendFileSync(process.env.FAULT_LOG, `${line}\n`);
log(`started pid=${process.pid}`);

if (args.has('--stderr-not-utf8')) {
  // Not UTF-8 (a Windows code page, a binary's junk): a reader wanting text may choke on it.
  process.stderr.write(Buffer.from([0x66, 0x61, 0x75, 0x6c, 0x74, 0xff, 0xfe, 0x0a]));
}
if (args.has('--exit-at-start')) {
  console.error('fault-server: exiting at start on purpose');
  process.exit(3);
}
if (args.has('--hang-init')) {
  console.error('fault-server: never answering initialize');
  process.stdin.resume();
  setInterval(() => {}, 1 << 30);
} else if (args.has('--http')) {
  // Stateless: a server and transport for each request, as the SDK's examples do.
  const argv = process.argv.slice(2);
  const token = argv.includes('--require-token') ? argv[argv.indexOf('--require-token') + 1] : null;
  createServer(async (req, res) => {
    if (token && req.headers.authorization !== `Bearer ${token}`) {
      // What a server behind OAuth answers a client without its token.
      res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"', 'content-type': 'application/json' });
      res.end('{"error":"invalid_token"}');
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    if (body?.params?.name === 'cut_stream') {
      // The answer's event stream begins, then the connection drops (a proxy's idle cut).
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': started\n\n');
      setTimeout(() => res.socket.destroy(), 100);
      return;
    }
    if (body?.params?.name === 'bad_gateway') {
      // What a proxy in front of a server says when the server behind it failed.
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><h1>502 Bad Gateway</h1></html>');
      return;
    }
    const server = withTools(new McpServer({ name: 'fault-server', version: '1.0.0' }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: args.has('--json'),
    });
    res.on('close', () => { transport.close(); server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }).listen(Number(process.env.PORT ?? 0), '127.0.0.1');
} else {
  const server = withTools(new McpServer({ name: 'fault-server', version: '1.0.0' }));
  if (args.has('--garbage')) {
    // Lines on stdout that are not JSON-RPC: a careless server's console.log.
    process.stdout.write('Server starting... (this is not JSON)\n{"half": \n\u001b[31mcolour\u001b[0m\n');
  }
  await server.connect(new StdioServerTransport());
  if (args.has('--garbage')) {
    setInterval(() => process.stdout.write('tick: not json\n'), 200);
  }
}

/** The fault server's tools, registered on `server`. */
function withTools(server) {
  server.tool('cut_stream', 'Over HTTP: its answer stream is cut', {}, async () => ({
    content: [{ type: 'text', text: 'not over HTTP' }],
  }));
  server.tool('bad_gateway', 'Over HTTP: answered by a 502 page instead', {}, async () => ({
    content: [{ type: 'text', text: 'not over HTTP' }],
  }));
  server.tool('shout', 'Writes n bytes to stderr (in lines of 100, or as one line), then answers', { bytes: z.number(), oneLine: z.boolean().optional() }, async ({ bytes, oneLine }) => {
    const line = oneLine ? `${'e'.repeat(bytes)}\n` : `${'e'.repeat(99)}\n`.repeat(Math.ceil(bytes / 100));
    process.stderr.write(line);
    process.stderr.write('shouted\n');
    return { content: [{ type: 'text', text: `wrote ${bytes} bytes to stderr` }] };
  });
  server.tool('echo', 'Echoes the message', { message: z.string() }, async ({ message }) => ({
    content: [{ type: 'text', text: `Echo: ${message}` }],
  }));
  server.tool('big', 'Returns n bytes of text', { bytes: z.number() }, async ({ bytes }) => ({
    content: [{ type: 'text', text: 'x'.repeat(bytes) }],
  }));
  server.tool('sleep', 'Waits ms milliseconds', { ms: z.number() }, async ({ ms }, extra) => {
    log('sleep started');
    extra.signal.addEventListener('abort', () => log('sleep cancelled'));
    await new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      extra.signal.addEventListener('abort', () => { clearTimeout(t); resolve(); });
    });
    return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
  });
  server.tool('crash', 'Exits the server in the middle of the call', {}, async () => {
    log('crashing');
    setTimeout(() => process.exit(7), 50);
    return await new Promise(() => {});
  });
  let added = 0;
  server.tool('add_tool', 'Adds a new tool to the list', {}, async () => {
    added += 1;
    const name = `added_${added}`;
    server.tool(name, `Tool number ${added} added at run time`, {}, async () => ({
      content: [{ type: 'text', text: `${name} ran` }],
    }));
    return { content: [{ type: 'text', text: `added ${name}` }] };
  });
  server.tool('env', 'The names of the environment variables the server sees', {}, async () => ({
    content: [{ type: 'text', text: Object.keys(process.env).sort().join('\n') }],
  }));
  server.tool('image', 'A tiny PNG', {}, async () => ({
    content: [
      { type: 'text', text: 'a red dot' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==' },
    ],
  }));
  return server;
}
