import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import ContextMeter from './ContextMeter.svelte';
import type { InspectView } from '../../lib/api/types';

function view(historyBudgetLearned: boolean): InspectView {
  return {
    systemPrompt: '',
    sections: [],
    history: [],
    historyTokens: 749,
    historyBudget: 779,
    historyBudgetLearned,
    summariesNotRepeated: 0,
    summaryTokensSaved: 0,
    memoryTokens: 0,
    memoryBudget: null,
    memoryEnabled: false,
    toolDefinitions: 0,
    toolDefinitionTokens: 0,
    errors: [],
  };
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
