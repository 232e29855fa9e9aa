import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import ProvidersSection from './ProvidersSection.svelte';
import TurnError from '../chat/TurnError.svelte';
import type { SettingsView } from '../../lib/api/types';

const DBUS = 'DBus error: org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.secrets was not provided';

const view = {
  settings: {
    providers: {
      openai: { type: 'openai' },
      anthropic: { type: 'anthropic' },
      local: { type: 'ollama' },
    },
    agent: { provider: 'openai' },
  },
  keys: ['openai', 'anthropic', 'local'].map((provider) => ({ provider, location: { kind: 'missing' }, description: 'not set' })),
  keychain: { available: false, reason: DBUS, fileFallbackAllowed: false },
  loadError: null,
} as unknown as SettingsView;

const count = (text: string, needle: string) => text.split(needle).length - 1;
const outsideDetails = (html: string) => html.replace(/<details[\s\S]*?<\/details>/g, '');

describe('the no-keychain notice', () => {
  it('is said once for all providers, with the DBus text only under Details', () => {
    const { body } = render(ProvidersSection, { props: { view, onApplied: () => {}, onModels: () => {} } });
    expect(count(body, 'No OS keychain is available')).toBe(1);
    expect(count(body, 'DBus error')).toBe(1);
    expect(outsideDetails(body)).not.toContain('DBus error');
    expect(body).toMatch(/<details[^>]*>\s*<summary[^>]*>Details<\/summary>[\s\S]*DBus error/);
  });
});

describe('a failed reply', () => {
  it('shows the plain headline and folds the technical text away', () => {
    const failure = {
      retry: true,
      error: {
        code: 'network',
        message: 'Nothing answered at the provider’s address. Check that the server is running and the base URL is right.',
        detail: 'network error: tcp connect error: Connection refused (os error 111)',
      },
    };
    const { body } = render(TurnError, { props: { failure, canRetry: true, onRetry: () => {}, onDismiss: () => {} } });
    expect(body).toContain('Nothing answered');
    expect(outsideDetails(body)).not.toContain('os error 111');
    expect(body).toContain('os error 111');
  });
});
