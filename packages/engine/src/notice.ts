import { inspect } from 'node:util';
import type { Axis, Decision, Finding } from './types.js';

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th'}`;
}

// Every level asks what reference 000 asks (re-read the last result, then change approach or
// conclude the repeat is intentional); only the tone rises.
const NUDGES = [
  (tool: string, n: number) =>
    `[loopguard] Reminder: this is the ${ordinal(n)} call in a row to ${tool} with identical arguments. ` +
    'Re-read the result above before calling it again: if it already answers the question, move on; ' +
    'if the repeat is intentional, carry on.',
  (tool: string, n: number) =>
    `[loopguard] Second reminder: ${n} calls in a row to ${tool} with exactly the same arguments. ` +
    'Re-read the last result: another identical call is unlikely to tell you anything new. Change ' +
    'your approach (different arguments, a different tool), or carry on only if repeating it is ' +
    'intentional.',
  (tool: string, n: number) =>
    `[loopguard] Final reminder: ${n} identical ${tool} calls in a row; this looks like a loop. ` +
    'Re-read the last result now and decide: change approach, or finish with what you have and ' +
    'explain what is blocking you. Repeat this call only if you are sure the repeat is intentional.',
];

/** The advisory text of a streak nudge at `level` (1-based; levels past 3 keep the sternest tone). */
export function nudgeText(tool: string, streak: number, level: number): string {
  const index = Math.min(level, NUDGES.length) - 1;
  const make = NUDGES[Math.max(index, 0)] ?? NUDGES[0]!;
  return make(tool, streak);
}

const AXIS_TEXT: Record<Axis, (tool: string, count: number) => string> = {
  streak: (tool, n) => `${n} identical ${tool} calls in a row`,
  repetition: (tool, n) => `${tool} has been called with these exact arguments ${n} times`,
  exact_failure: (tool, n) =>
    `${tool} with these exact arguments has failed ${n} times without succeeding`,
  same_tool_failure: (tool, n) => `${tool} has failed ${n} times (any arguments)`,
  no_progress: (tool, n) => `${tool} returned the same result ${n} times: no progress`,
  cycle: (_tool, n) => `the last calls repeat the same sequence (${n} laps), with the same results`,
  poll: (tool, n) => `${tool} was polled ${n} times without its result changing`,
  same_error: (tool, n) => `${tool} has failed ${n} times with the same error (any arguments)`,
};

/**
 * The text of a warn, block or halt finding. `refused` is true for a call blocked before it
 * ran; an after-call block reports a call that did run and announces the refusal of the next.
 */
export function findingText(
  axis: Axis,
  action: Finding['action'],
  tool: string,
  count: number,
  refused = false,
): string {
  const what = AXIS_TEXT[axis](tool, count);
  switch (action) {
    case 'warn':
      return `[loopguard] Warning: ${what}. Change approach instead of repeating the same call.`;
    case 'block':
      return refused
        ? `[loopguard] Blocked: ${what}. This call was not executed. Use a different approach or report what is blocking you.`
        : `[loopguard] Limit reached: ${what}. Further identical calls will be refused. Use a different approach or report what is blocking you.`;
    case 'halt':
      return refused
        ? `[loopguard] Halted: ${what}. This run has been stopped; this call was not executed.`
        : `[loopguard] Halted: ${what}. The run is being stopped; no further tool calls will run in this turn.`;
    default:
      return `[loopguard] ${what}.`;
  }
}

/** Text of a result that is neither a string, an array nor MCP-style content. */
function resultText(result: unknown): string {
  // a Map, Set or Error would print as {} and lose its content; BigInt or a cycle would throw
  if (!(result instanceof Map || result instanceof Set || result instanceof Error)) {
    try {
      const json = JSON.stringify(result);
      if (json !== undefined) return json;
    } catch {
      // falls through to inspect
    }
  }
  return inspect(result, { depth: 6, breakLength: Number.POSITIVE_INFINITY });
}

/**
 * The tool result with the decision's notice appended, never altering the original content:
 * strings get the text after a blank line, MCP-style `{ content: [...] }` results get an extra
 * text item, arrays an extra element, other values become their text (JSON, or Node's inspect
 * for a Map, Set, Error or what JSON cannot write) followed by the notice. A result whose reading
 * throws (a getter, a proxy) becomes what Node's inspect shows of it, followed by the notice.
 */
export function appendNotice<T>(result: T, decision: Decision): T | string {
  if (decision.action === 'allow') return result;
  const notice = decision.message;
  try {
    return withNotice(result, notice);
  } catch {
    return `${shownAnyway(result)}\n\n${notice}`;
  }
}

function withNotice<T>(result: T, notice: string): T | string {
  if (typeof result === 'string') return result.length > 0 ? `${result}\n\n${notice}` : notice;
  if (result === undefined || result === null) return notice;
  if (Array.isArray(result)) return [...result, notice] as T;
  if (typeof result === 'object') {
    const content = (result as { content?: unknown }).content;
    if (Array.isArray(content)) {
      return { ...result, content: [...content, { type: 'text', text: notice }] } as T;
    }
  }
  return `${resultText(result)}\n\n${notice}`;
}

/** What inspect shows of a result that cannot be read (getters shown, not called). */
function shownAnyway(result: unknown): string {
  try {
    return inspect(result, {
      depth: 6,
      breakLength: Number.POSITIVE_INFINITY,
      customInspect: false,
    });
  } catch {
    return '[Unreadable]';
  }
}
