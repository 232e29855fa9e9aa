import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import FirstRunGuide from './FirstRunGuide.svelte';

const memoryStep = (body: string) => body.match(/<li id="first-run-memory"[^>]*>([\s\S]*?)<\/li>/)?.[1] ?? '';

describe('FirstRunGuide', () => {
  it('says memory builds up only when the settings turn it on (a first run does)', () => {
    const { body } = render(FirstRunGuide, { props: { problem: null, memoryOn: true, onOpenSettings: () => {} } });
    expect(memoryStep(body)).toContain('Memory builds up');
    expect(memoryStep(body)).toContain('turns it off');
  });

  it('does not promise memory when the settings turn it off', () => {
    const { body } = render(FirstRunGuide, { props: { problem: null, memoryOn: false, onOpenSettings: () => {} } });
    expect(memoryStep(body)).toContain('Memory is off');
    expect(memoryStep(body)).not.toContain('builds up');
  });
});
