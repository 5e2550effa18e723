import { ENV_CAPTURE_MESSAGE_CONTENT } from './semconv.js';
import type { CaptureOptions } from './types.js';

const SENSITIVE =
  /password|passwd|passphrase|token|secret|authorization|cookie|credential|bearer|jwt|api[_-]?key|private[_-]?key|access[_-]?key|^(?:x[_-])?auth$/i;
const DEFAULT_MAX_LENGTH = 4096;
const MAX_DEPTH = 32;

/** Capture settings after defaults. */
export interface ResolvedCapture {
  enabled: boolean;
  redact: (key: string, value: unknown) => unknown;
  maxLength: number;
}

/** The default redaction: sensitive-looking keys become `'[REDACTED]'`. */
export function defaultRedact(key: string, value: unknown): unknown {
  return SENSITIVE.test(key) ? '[REDACTED]' : value;
}

/** Merges `GuardOptions.capture` with the environment default. */
export function resolveCapture(
  option: boolean | CaptureOptions | undefined,
  env: Record<string, string | undefined> = process.env,
): ResolvedCapture {
  const fromEnv = env[ENV_CAPTURE_MESSAGE_CONTENT]?.trim().toLowerCase() === 'true';
  if (option === undefined || typeof option === 'boolean') {
    return { enabled: option ?? fromEnv, redact: defaultRedact, maxLength: DEFAULT_MAX_LENGTH };
  }
  const maxLength =
    option.maxLength !== undefined && Number.isFinite(option.maxLength) && option.maxLength > 0
      ? Math.floor(option.maxLength)
      : DEFAULT_MAX_LENGTH;
  return {
    enabled: option.enabled ?? fromEnv,
    redact: option.redact ?? defaultRedact,
    maxLength,
  };
}

/** One walk over a captured value: entries still worth copying, shared by every level. */
interface Walk {
  redact: ResolvedCapture['redact'];
  left: number;
  /** Keys whose value the hook replaced so far. */
  replaced: number;
}

/** Sets `record[key]` as an own property (`__proto__` would otherwise set the prototype). */
function setOwn(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(record, key, { value, enumerable: true, writable: true });
  } else record[key] = value;
}

/** Whether JSON.stringify writes a value in an object (undefined, functions, symbols: left out). */
function written(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/**
 * A copy of `value` as JSON.stringify sees it (toJSON applied), each object key through the
 * redaction hook. Every written entry adds at least one character to the text, so the copy stops
 * once it holds more entries than the cut text can show: the cut text stays the same, and a
 * megabyte Buffer costs no more than a short one.
 */
function redactDeep(value: unknown, walk: Walk, depth: number, key: string): unknown {
  if (typeof value === 'string') return depth > 0 ? redactEmbedded(value, walk, depth) : value;
  let v = value;
  if (v !== null && typeof v === 'object') {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = toJSON.call(v, key);
  }
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (let i = 0; i < v.length && walk.left > 0; i++) {
      walk.left--;
      out.push(redactDeep(v[i], walk, depth + 1, String(i)));
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  const record = v as Record<string, unknown>;
  // a typed array's keys are its indices: read them lazily, not as a million-entry list
  const view = ArrayBuffer.isView(v) && !(v instanceof DataView);
  const keys = view ? undefined : Object.keys(record);
  const count = keys ? keys.length : (v as ArrayLike<unknown>).length;
  for (let i = 0; i < count && walk.left > 0; i++) {
    const k = keys ? keys[i]! : String(i);
    const member = record[k];
    const redacted = walk.redact(k, member);
    if (redacted !== member) walk.replaced++;
    const item = redactDeep(redacted, walk, depth + 1, k);
    if (!written(item)) continue;
    walk.left--;
    setOwn(out, k, item);
  }
  return out;
}

/**
 * A string member holding a JSON object or array (a request body, say): redacted inside and
 * written back compactly when the hook replaced anything in it, else kept as it was.
 */
function redactEmbedded(text: string, walk: Walk, depth: number): string {
  const parsed = parseJsonString(text);
  if (parsed === text || parsed === null || typeof parsed !== 'object') return text;
  const before = walk.replaced;
  const redacted = redactDeep(parsed, walk, depth, '');
  return walk.replaced === before ? text : stringify(redacted);
}

function parseJsonString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value;
  try {
    return JSON.parse(trimmed);
  } catch {
    return value;
  }
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, (_key, item: unknown) =>
      typeof item === 'bigint' ? item.toString() : item,
    );
  } catch {
    return String(value);
  }
}

/**
 * The attribute value for captured arguments or a result: JSON strings are parsed, every object
 * key goes through the redaction hook, and the text is cut at `maxLength` characters with `…`.
 */
export function captureValue(value: unknown, capture: ResolvedCapture): string {
  const walk: Walk = { redact: capture.redact, left: capture.maxLength + 1, replaced: 0 };
  const text = stringify(redactDeep(parseJsonString(value), walk, 0, ''));
  if (text.length <= capture.maxLength) return text;
  return `${text.slice(0, Math.max(0, capture.maxLength - 1))}…`;
}
