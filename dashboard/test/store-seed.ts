import type { QueryFilter } from '../src/api/types.js';
import type { Store } from '../src/store/index.js';
import { makeLoop, makePlainSpan, makeToolSpan } from './span-fixtures.js';

/** Base time of the fixtures: 2026-01-01T00:00:00Z. */
export const T0 = Date.UTC(2026, 0, 1);
/** One minute in milliseconds. */
export const MIN = 60_000;
/** A range holding every fixture span. */
export const ALL: QueryFilter = { from: T0 - 60 * MIN, to: T0 + 600 * MIN };

/** Two services; a blocked grep loop, a nudged read loop, a clean session and an LLM span. */
export async function seedStore(store: Store): Promise<void> {
  await store.insert([
    ...makeLoop({
      scope: 'run-1',
      tool: 'grep',
      args: 'needle',
      repeats: 9,
      startMs: T0,
      blocked: true,
    }),
    ...makeLoop({
      scope: 'run-2',
      tool: 'read',
      args: 'file',
      service: 'agent-b',
      repeats: 5,
      startMs: T0 + 10 * MIN,
    }),
    makeToolSpan({
      scope: 'run-3',
      tool: 'grep',
      args: 'needle',
      timeMs: T0 + 20 * MIN,
      conversationId: 'conv-3',
      durationMs: 2000,
      count: 2,
    }),
    makeToolSpan({ scope: 'run-3', tool: 'write', args: 'out', timeMs: T0 + 21 * MIN }),
    makePlainSpan({ timeMs: T0 + 22 * MIN }),
  ]);
}
