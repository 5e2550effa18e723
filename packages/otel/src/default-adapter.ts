import { appendNotice, type Decision, type StopDecision } from '@loopguard/engine';
import type { ResultAdapter } from './types.js';

/** The text a model reads when loopguard stopped a call (the engine's finding message). */
export function blockedText(decision: StopDecision): string {
  return decision.message;
}

/**
 * The engine's `appendNotice`: strings get the notice after a blank line, `{ content: [...] }`
 * results an extra text item, arrays an extra element, other values their JSON text followed by
 * the notice. For frameworks that hand every tool result to the model as text anyway.
 */
export function noticeAsText(result: unknown, notice: string): unknown {
  // appendNotice reads only `action` and `message` of the decision.
  return appendNotice(result, { action: 'warn', message: notice } as Decision);
}

/**
 * Plain tool functions: a notice is added only where the result keeps its type: after a
 * string's text (a blank line between), or as an extra text item of an MCP-style
 * `{ content: [...] }` result (a copy). Any other result (a number, an object, a Buffer, a
 * stream) is returned as it was: the notice is then only on the span, and given to the
 * `onNotice` option of `wrap` / `guardTool` where one is set. A blocked call returns the
 * engine's message.
 */
export const defaultResultAdapter: ResultAdapter<unknown> = {
  blocked: blockedText,
  appendNotice(result, notice) {
    if (typeof result === 'string') return noticeAsText(result, notice);
    if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
      const content = (result as { content?: unknown }).content;
      if (Array.isArray(content) && Object.getPrototypeOf(result) === Object.prototype) {
        return noticeAsText(result, notice);
      }
    }
    return result;
  },
};
