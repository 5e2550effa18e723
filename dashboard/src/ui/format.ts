const integer = new Intl.NumberFormat('en-US');

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/** 12345 -> "12,345". */
export function fmtInt(n: number): string {
  return integer.format(n);
}

/**
 * A count for a narrow place: "987,654" up to a million, then "1.2M", "123.5B" (show fmtInt in a
 * title beside it).
 */
export function fmtCount(n: number): string {
  return Math.abs(n) < 1_000_000 ? integer.format(n) : compact.format(n);
}

/**
 * 0.1234 -> "12.3%"; a share under 0.005% -> "<0.01%" (there are loops, however few), and one
 * short of all that would round to 100% -> ">99.9%" (not every call looped).
 */
export function fmtPct(share: number): string {
  // a share that exists but rounds to nothing is not shown as none, nor one short of all as all
  if (share > 0 && share < 0.00005) return '<0.01%';
  const text = (share * 100).toFixed(share > 0 && share < 0.01 ? 2 : 1);
  return share < 1 && text === '100.0' ? '>99.9%' : `${text}%`;
}

/**
 * Seconds as "850 ms", "12.4 s", "3 m 20 s", "2 h 5 m", "3 d 4 h"; "–" for no number. The value
 * is rounded first, so one that rounds up to the next unit is shown in it (119.6 s is "2 m 0 s",
 * never "1 m 60 s").
 */
export function fmtSeconds(s: number): string {
  if (!Number.isFinite(s)) return '–';
  const ms = Math.round(s * 1000);
  if (ms < 1000) return `${ms} ms`;
  if (Number(s.toFixed(2)) < 10) return `${s.toFixed(2)} s`;
  if (Number(s.toFixed(1)) < 60) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  if (whole < 3600) return `${Math.floor(whole / 60)} m ${whole % 60} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} h ${minutes % 60} m`;
  const hours = Math.round(s / 3600);
  return `${fmtInt(Math.floor(hours / 24))} d ${hours % 24} h`;
}

/** Milliseconds, same style as fmtSeconds. */
export function fmtMs(ms: number): string {
  return fmtSeconds(ms / 1000);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Epoch ms as local "2026-11-29 22:45:03". */
export function fmtTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${fmtClock(ms)}`;
}

/** Epoch ms as local "22:45:03". */
export function fmtClock(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Epoch ms as local "22:45:03.120". */
export function fmtClockMs(ms: number): string {
  return `${fmtClock(ms)}.${pad(new Date(ms).getMilliseconds(), 3)}`;
}

/**
 * Epoch ms as a short local time for narrow columns: "22:45:03" on the day of `now`,
 * "11-29 22:45" within its year, else "2025-11-29" (show fmtTime in a title beside it).
 */
export function fmtShortTime(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const today = new Date(now);
  if (d.getFullYear() !== today.getFullYear()) {
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  }
  if (d.getMonth() === today.getMonth() && d.getDate() === today.getDate()) return fmtClock(ms);
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Epoch ms as "5 s ago" / "3 m ago" relative to now. */
export function fmtAgo(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** Epoch ms to the value of an <input type="datetime-local">. */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A bucket width as "15 min", "1 h", "1 d", "30 s". */
export function fmtBucket(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return fmtMs(ms);
}

/** "1 call", "3 calls" (`fmt` writes the number: fmtInt, or fmtCount for a narrow place). */
export function plural(n: number, noun: string, fmt: (n: number) => string = fmtInt): string {
  return `${fmt(n)} ${noun}${n === 1 ? '' : 's'}`;
}

const PAST: Record<string, string> = {
  nudge: 'nudged',
  warn: 'warned',
  block: 'blocked',
  halt: 'halted',
};

/**
 * How a call's action reads: the action itself, or for a decision recorded in shadow mode (never
 * applied) "would have blocked", "would have warned", ...
 */
export function actionLabel(action: string, shadow: boolean | undefined): string {
  const past = PAST[action];
  return shadow && past ? `would have ${past}` : action;
}

/** Keys whose values the dashboard never shows, even when the capture let them through. */
const SECRET_KEY = /pass(word|wd)?|secret|token|api[-_]?key|authorization|credential|cookie/i;

/** Longest readable form of a call's arguments before it is cut with an ellipsis. */
export const ARGS_MAX = 80;

function argValue(v: unknown, depth: number): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || typeof v !== 'object') return String(v);
  if (depth > 1) return Array.isArray(v) ? '[…]' : '{…}';
  if (Array.isArray(v)) return `[${v.map((x) => argValue(x, depth + 1)).join(', ')}]`;
  return `{${argPairs(v as Record<string, unknown>, depth + 1)}}`;
}

function argPairs(o: Record<string, unknown>, depth: number): string {
  return Object.entries(o)
    .map(([k, v]) => `${k}: ${SECRET_KEY.test(k) ? '[REDACTED]' : argValue(v, depth)}`)
    .join(', ');
}

/**
 * A call's captured arguments (gen_ai.tool.call.arguments, already redacted by the capture) as
 * one readable line: a JSON object's pairs without braces (`path: "src", depth: 2`), values of
 * secret-looking keys replaced by `[REDACTED]`, nesting past two levels elided, whitespace folded
 * and the whole cut to `max` characters with an ellipsis. Text that is not JSON is shown as is.
 */
export function fmtArgs(args: string, max = ARGS_MAX): string {
  let text: string;
  try {
    const v: unknown = JSON.parse(args);
    text =
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? argPairs(v as Record<string, unknown>, 0)
        : argValue(v, 0);
  } catch {
    text = args;
  }
  text = text.replace(/\s+/g, ' ').trim();
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/** USD as "$0.42", "$12.30", "$1.2K"; amounts under a cent as "<$0.01" (but not zero). */
export function fmtUsd(usd: number): string {
  if (usd > 0 && usd < 0.005) return '<$0.01';
  return usd < 1000 ? `$${usd.toFixed(2)}` : `$${compact.format(usd)}`;
}

/** What each axis counts, in words, for a finding's explanation. */
const AXIS_COUNTS: Record<string, string> = {
  streak: 'identical calls in a row',
  repetition: 'calls with these arguments that repeated an earlier result',
  exact_failure: 'identical calls that failed',
  same_tool_failure: 'failures of this tool in a row',
  no_progress: 'calls returning the same result',
  cycle: 'laps of the same cycle of calls',
  poll: 'polls returning the same result',
  same_error: 'failures of this tool with the same error',
};

/**
 * Why loopguard made a finding, in words a developer reads, from its event's attributes
 * (`loopguard.axis`, `loopguard.count`, `loopguard.threshold`): "warn on no_progress: 4 calls
 * returning the same result, threshold 2". Undefined when the event carries no axis.
 */
export function findingWhy(action: string, attributes: Record<string, string>): string | undefined {
  const axis = attributes['loopguard.axis'];
  if (!axis) return undefined;
  const count = attributes['loopguard.count'];
  const threshold = attributes['loopguard.threshold'];
  const what = AXIS_COUNTS[axis] ?? 'calls';
  const counted = count ? `: ${count} ${what}` : '';
  const limit = threshold ? `, threshold ${threshold}` : '';
  return `${action} on ${axis}${counted}${limit}`;
}
