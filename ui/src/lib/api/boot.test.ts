// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';

import { BOOT_ELEMENT_ID, takeBootStatus } from './boot';

function serve(json: string) {
  const block = document.createElement('script');
  block.id = BOOT_ELEMENT_ID;
  block.type = 'application/json';
  block.textContent = json;
  document.head.appendChild(block);
}

describe('the status served with the page', () => {
  afterEach(() => document.getElementById(BOOT_ELEMENT_ID)?.remove());

  it('is read once: a later status comes from the backend', () => {
    serve('{"version":"0.1.0","ready":true,"theme":"dark"}');
    expect(takeBootStatus()).toMatchObject({ version: '0.1.0', ready: true, theme: 'dark' });
    expect(takeBootStatus()).toBeNull();
  });

  it('keeps text the backend escaped so it could not close the block', () => {
    serve('{"version":"0.1.0","dataDir":"\\u003c/script>"}');
    expect(takeBootStatus()?.dataDir).toBe('</script>');
  });

  it('is absent when the page came without it or it cannot be read', () => {
    expect(takeBootStatus()).toBeNull();
    serve('{not json');
    expect(takeBootStatus()).toBeNull();
    serve('null');
    expect(takeBootStatus()).toBeNull();
  });
});
