import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import ContextMeter from './ContextMeter.svelte';
import type { InspectView } from '../../lib/api/types';
import { inspectView } from '../../lib/api/inspectView.fixture';

function view(historyBudgetLearned: boolean): InspectView {
  return inspectView({ historyTokens: 749, historyBudget: 779, historyBudgetLearned });
}

describe('the context meter', () => {
  it("says when its budget is what the model's server held", () => {
    const { body } = render(ContextMeter, { props: { view: view(true) } });
    expect(body).toContain('749 / 779 tokens');
    expect(body).toContain('server refused more: its context is smaller');
    const { body: usual } = render(ContextMeter, { props: { view: view(false) } });
    expect(usual).not.toContain('refused more');
  });
});
