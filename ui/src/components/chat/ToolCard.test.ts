import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import ToolCard from './ToolCard.svelte';
import { newToolCard } from '../../lib/toolCards';

describe('ToolCard', () => {
  it('renders what a tool returned as text, never as markup', () => {
    const card = newToolCard('c1', 'evil', {
      status: 'done',
      args: '{"x":"<img src=x onerror=alert(1)>"}',
      result: '<script>alert(1)</script>',
    });
    const { body } = render(ToolCard, { props: { card, cardKey: 'k1' } });
    expect(body).not.toContain('<script>');
    expect(body).not.toContain('<img src=x');
    expect(body).toContain('&lt;script>');
  });

  it('shows only allowed images, the status, duration and prompt cost', () => {
    const card = newToolCard('c2', 'files__shot', {
      server: 'files',
      tool: 'shot',
      status: 'done',
      result: '{}',
      durationMs: 1200,
      promptTokens: 321,
      omittedTokens: 5000,
      images: [
        { mimeType: 'image/png', data: 'iVBORw0KGgo=' },
        { mimeType: 'image/svg+xml', data: 'PHN2Zz4=' },
      ],
    });
    const { body } = render(ToolCard, { props: { card, cardKey: 'k2' } });
    expect(body).toContain('data-testid="tool-card"');
    expect(body).toContain('data-status="done"');
    expect(body).toContain('files · shot');
    expect(body).toContain('1.2 s');
    expect(body).toContain('≈ 321 tokens in the prompt');
    expect(body).toContain('truncated — 5,000 tokens omitted');
    expect(body).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(body).not.toContain('svg+xml');
  });

  it('offers "show all" only for a long result', () => {
    const long = newToolCard('c3', 't', { status: 'done', result: 'x'.repeat(10_000) });
    expect(render(ToolCard, { props: { card: long, cardKey: 'k3' } }).body).toContain('Show all (6,000 more characters)');
    const large = newToolCard('c5', 't', {
      status: 'done',
      result: 'start',
      resultRest: { sessionKey: 's', seq: 2, callId: 'c5', bytes: 5 * 1024 * 1024 },
    });
    expect(render(ToolCard, { props: { card: large, cardKey: 'k5' } }).body).toContain('Show all (5.0 MB)');
    const short = newToolCard('c4', 't', { status: 'done', result: 'ok' });
    expect(render(ToolCard, { props: { card: short, cardKey: 'k4' } }).body).not.toContain('Show all');
  });
});
