import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import RegenerateButton from './RegenerateButton.svelte';

describe('RegenerateButton', () => {
  it('keeps plain Regenerate one click, with another model one menu away', () => {
    const { body } = render(RegenerateButton, {
      props: { choices: [{ key: 'openai\ngpt-4o', label: 'openai · gpt-4o', choice: { provider: 'openai', model: 'gpt-4o' } }] },
    });
    expect(body).toMatch(/<button[^>]*id="regenerate-button"[^>]*aria-label="Regenerate reply"/);
    expect(body).toMatch(/<button[^>]*id="regenerate-with-button"[^>]*aria-label="Regenerate with another model"[^>]*aria-haspopup="menu"[^>]*aria-expanded="false"/);
    expect(body).not.toContain('role="menu"');
  });

  it('offers no menu when there is no other model to pick', () => {
    const { body } = render(RegenerateButton, { props: { choices: [] } });
    expect(body).toContain('id="regenerate-button"');
    expect(body).not.toContain('id="regenerate-with-button"');
  });
});
