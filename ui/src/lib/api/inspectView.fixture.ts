// For tests only: an `InspectView` of an empty conversation, with the fields a test sets.
import type { InspectView } from './types';

export function inspectView(fields: Partial<InspectView> = {}): InspectView {
  return {
    systemPrompt: '',
    sections: [],
    history: [],
    historyTokens: 0,
    historyBudget: 32000,
    historyBudgetLearned: false,
    summariesNotRepeated: 0,
    summaryTokensSaved: 0,
    memoryTokens: 0,
    memoryBudget: null,
    memoryEnabled: false,
    toolDefinitions: 0,
    toolDefinitionTokens: 0,
    errors: [],
    ...fields,
  };
}
