import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import BudgetTable from './BudgetTable.svelte';
import type { InspectView } from '../../lib/api/types';
import { inspectView } from '../../lib/api/inspectView.fixture';

function view(toolDefinitions: number, toolDefinitionTokens: number): InspectView {
  return inspectView({
    systemPrompt: 'You are Lango.',
    sections: [{ name: 'base', tokens: 100, budget: null }],
    historyTokens: 500,
    toolDefinitions,
    toolDefinitionTokens,
  });
}

describe('the inspector budget table', () => {
  it('counts the tool definitions every request carries, in a row and in the total', () => {
    const { body } = render(BudgetTable, { props: { view: view(30, 3700), promptTokens: 100 } });
    expect(body).toContain('Tool definitions');
    expect(body).toContain('30 tools on offer, sent with every request');
    expect(body).toContain('≈ 3,700');
    expect(body).toMatch(/id="inspector-total"[^>]*>4,300</);
    expect(body).toContain('system prompt 100 tokens + tools 3,700 tokens + history 500 tokens');
  });

  it('has no tools row when no tool is on offer', () => {
    const { body } = render(BudgetTable, { props: { view: view(0, 0), promptTokens: 100 } });
    expect(body).not.toContain('Tool definitions');
    expect(body).toMatch(/id="inspector-total"[^>]*>600</);
  });

  it("says when the history's budget is what the model's server held", () => {
    const learned = { ...view(0, 0), historyBudget: 3512, historyBudgetLearned: true };
    const { body } = render(BudgetTable, { props: { view: learned, promptTokens: 100 } });
    expect(body).toContain("its server refused more than this budget");
    expect(body).toContain('3,512');
    const { body: usual } = render(BudgetTable, { props: { view: view(0, 0), promptTokens: 100 } });
    expect(usual).toContain('older ones are left to memory');
  });
});
