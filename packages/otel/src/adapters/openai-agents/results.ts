import { noticeAsText } from '../../default-adapter.js';
import type { ResultAdapter } from '../../types.js';
import { isPlainObject } from '../shared/index.js';

/** The text the SDK's default `errorFunction` returns to the model when a function tool throws. */
export const AGENTS_DEFAULT_TOOL_ERROR =
  'An error occurred while running the tool. Please try again.';

/** What the SDK's own traces record instead of the error of a tool with the default `errorFunction`. */
const AGENTS_REDACTED_TOOL_ERROR = 'Tool execution failed. Error details are redacted.';

/** The parts of an SDK trace span (`getCurrentSpan()`) that hold a tool's error. */
export interface AgentsTraceSpan {
  readonly error: { message: string; data?: Record<string, unknown> } | null;
  setError(error: { message: string; data?: Record<string, unknown> }): void;
}

/**
 * Puts the SDK's redacted text back in place of the error it just recorded on its function span
 * (`data.error`). The SDK leaves a tool's error out of its traces only when the tool has the
 * default `errorFunction`; a guarded tool has loopguard's in its place, which the SDK takes for an
 * app's own, so it records the error's text whenever the run includes sensitive data in traces
 * (`traceIncludeSensitiveData`, on by default).
 */
export function redactAgentsToolError(span: AgentsTraceSpan | null | undefined): void {
  const recorded = span?.error;
  if (!span || !recorded?.data || !('error' in recorded.data)) return;
  span.setError({ ...recorded, data: { ...recorded.data, error: AGENTS_REDACTED_TOOL_ERROR } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One of the SDK's structured tool outputs (`ToolOutputText`, `ToolOutputImage`, `ToolOutputFileContent`). */
function isStructuredItem(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if (value.type === 'text') return typeof value.text === 'string';
  return value.type === 'image' || value.type === 'file';
}

/** The items of a structured output (one item or a non-empty array of items), else undefined. */
function structuredItems(result: unknown): unknown[] | undefined {
  if (Array.isArray(result)) {
    return result.length > 0 && result.every(isStructuredItem) ? result : undefined;
  }
  return isStructuredItem(result) ? [result] : undefined;
}

/**
 * Results as the SDK carries them: blocked = the reason as the tool's output string; a notice is
 * an extra `{ type: 'text' }` item on structured outputs, a `loopguard` field on plain objects,
 * and follows strings after a blank line.
 */
export function agentsResultAdapter(
  isError?: (result: unknown) => boolean,
): ResultAdapter<unknown> {
  return {
    blocked: (decision) => decision.message,
    appendNotice(result, notice) {
      const items = structuredItems(result);
      if (items) return [...items, { type: 'text', text: notice }];
      if (isPlainObject(result)) return { ...result, loopguard: notice };
      return noticeAsText(result, notice);
    },
    isError: isError ?? ((result) => result === AGENTS_DEFAULT_TOOL_ERROR),
  };
}
