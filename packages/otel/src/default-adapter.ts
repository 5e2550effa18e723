import { appendNotice, type Decision, type StopDecision } from '@loopguard/engine';
import type { ResultAdapter } from './types.js';

/** The text a model reads when loopguard stopped a call (the engine's finding message). */
export function blockedText(decision: StopDecision): string {
  return decision.message;
}

/**
 * Results as strings/JSON, following the engine's `appendNotice`: strings get the notice after a
 * blank line, `{ content: [...] }` results an extra text item, arrays an extra element, other
 * values their JSON text followed by the notice. A blocked call returns the engine's message.
 */
export const defaultResultAdapter: ResultAdapter<unknown> = {
  blocked: blockedText,
  appendNotice(result, notice) {
    // appendNotice reads only `action` and `message` of the decision.
    return appendNotice(result, { action: 'warn', message: notice } as Decision);
  },
};
