/// <reference types="vitest/config" />
// Tests that mount components in a DOM and click them (`npm run test:dom`). Svelte's client
// build needs the `browser` condition, which the main config (server rendering) must not have.
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export default defineConfig({
  plugins: [svelte()],
  resolve: { conditions: ['browser'] },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.dom.test.svelte.ts'],
  },
});
