// For the memory view's DOM tests: one observation and one reflection of conversation "s1".
import type { Observation, Reflection } from '../../lib/api/types';

export const observation: Observation = {
  id: 'obs-1',
  sessionKey: 's1',
  content: 'The user is planning a trip to Lisbon in May.',
  tokenCount: 12,
  seqStart: 1,
  seqEnd: 20,
  createdAt: Date.now() - 3_600_000,
};

export const reflection: Reflection = {
  id: 'ref-1',
  sessionKey: 's1',
  content: 'The user plans travel carefully.',
  tokenCount: 8,
  generation: 1,
  seqStart: 1,
  seqEnd: 40,
  sourceTokenCount: 60,
  createdAt: Date.now() - 1_800_000,
};
