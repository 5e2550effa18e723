import { ENV_CAPTURE_MESSAGE_CONTENT } from './semconv.js';
import type { CaptureOptions } from './types.js';

const SENSITIVE = /password|passwd|token|secret|authorization|cookie|api[_-]?key/i;
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
  return { enabled: option.enabled, redact: option.redact ?? defaultRedact, maxLength };
}

function redactDeep(value: unknown, redact: ResolvedCapture['redact'], depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = redactDeep(redact(key, item), redact, depth + 1);
  }
  return out;
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
  const text = stringify(redactDeep(parseJsonString(value), capture.redact, 0));
  if (text.length <= capture.maxLength) return text;
  return `${text.slice(0, Math.max(0, capture.maxLength - 1))}…`;
}
