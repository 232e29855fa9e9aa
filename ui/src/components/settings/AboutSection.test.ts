import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import AboutSection from './AboutSection.svelte';
import type { AppStatus, SettingsView, UpdateCheck } from '../../lib/api/types';

const status = {
  version: '0.1.0',
  dataDir: '/home/u/.local/share/lango',
  configFile: '/home/u/.config/lango/settings.json',
  logDir: '/home/u/.local/share/lango/logs',
} as AppStatus;

const viewWith = (feedUrl?: string) =>
  ({ settings: feedUrl === undefined ? {} : { updates: { feedUrl } }, keys: [], loadError: null }) as unknown as SettingsView;

const check = (over: Partial<UpdateCheck>): UpdateCheck => ({
  current: '0.1.0',
  outcome: 'upToDate',
  latest: '0.1.0',
  url: null,
  notes: null,
  published: null,
  error: null,
  ...over,
});

describe('AboutSection', () => {
  it('shows the version, and update checks off until a feed is saved', () => {
    const { body } = render(AboutSection, { props: { status, view: viewWith() } });
    expect(body).toContain('0.1.0');
    expect(body).toMatch(/<input[^>]*id="update-feed-url"[^>]*value=""/);
    expect(body).toMatch(/<button[^>]*id="check-updates"[^>]*disabled/);
    expect(body).toMatch(/<button[^>]*id="clear-feed-url"[^>]*disabled/);
    expect(body).toContain('never looks for updates');
  });

  it('shows the saved feed and lets the user check it', () => {
    const { body } = render(AboutSection, { props: { status, view: viewWith('https://example.com/latest.json') } });
    expect(body).toContain('value="https://example.com/latest.json"');
    expect(body).not.toMatch(/<button[^>]*id="check-updates"[^>]*disabled/);
    expect(body).not.toMatch(/<button[^>]*id="clear-feed-url"[^>]*disabled/);
  });

  it('says when the user has the latest version', () => {
    const { body } = render(AboutSection, {
      props: { status, view: viewWith('https://example.com/f.json'), initialCheck: check({}) },
    });
    expect(body).toContain('You have the latest version (0.1.0).');
    expect(body).not.toContain('id="update-link"');
  });

  it('shows a newer version with a link, and its notes as text, never markup', () => {
    const { body } = render(AboutSection, {
      props: {
        status,
        view: viewWith('https://example.com/f.json'),
        initialCheck: check({
          outcome: 'available',
          latest: '0.2.0',
          url: 'https://example.com/releases/v0.2.0',
          notes: '<img src=x onerror=alert(1)> **Faster**',
          published: '2026-11-20',
        }),
      },
    });
    expect(body).toContain('Lango 0.2.0 is available — you have 0.1.0.');
    expect(body).toContain('id="update-link"');
    expect(body).toContain('https://example.com/releases/v0.2.0');
    expect(body).toContain('&lt;img src=x onerror=alert(1)> **Faster**');
    expect(body).not.toContain('<img');
    expect(body).toContain('Published 2026-11-20');
  });

  it('folds the detail of a failed check away', () => {
    const { body } = render(AboutSection, {
      props: {
        status,
        view: viewWith('https://example.com/f.json'),
        initialCheck: check({
          outcome: 'failed',
          latest: null,
          error: { code: 'update_unreachable', message: 'Could not reach the release feed.', detail: 'dns error: <no such host>' },
        }),
      },
    });
    expect(body).toContain('Could not reach the release feed.');
    expect(body).toMatch(/<details[^>]*>\s*<summary>Details<\/summary>/);
    expect(body).toContain('dns error: &lt;no such host>');
  });
});
