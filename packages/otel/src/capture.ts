import { describeOpaque } from '@loopguard/engine';
import { ENV_CAPTURE_MESSAGE_CONTENT } from './semconv.js';
import type { CaptureOptions } from './types.js';

const DEFAULT_MAX_LENGTH = 4096;
const MAX_DEPTH = 32;
const REDACTED = '[REDACTED]';

/** Words of a key (camelCase, snake_case, kebab-case, dotted) that mark its value as a secret. */
const SENSITIVE_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'passcode',
  'pass',
  'pwd',
  'secret',
  'secrets',
  'token',
  'auth',
  'oauth',
  'authorization',
  'authentication',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'bearer',
  'jwt',
]);
/** The same, written as one word or with separators: `apiKey`, `x-api-key`, `AWS_ACCESS_KEY_ID`. */
const SENSITIVE_JOINED =
  /password|passwd|passphrase|secret|credential|authoriz|authentic|apikey|accesskey|privatekey|signingkey|accesstoken|refreshtoken|authtoken|idtoken|sessiontoken|authheader|setcookie/;

/**
 * Whether a key (an object member, a header or query parameter name) names a secret: one of its
 * words is one of SENSITIVE_WORDS (`authHeader`, `X-Auth`, `pwd`, `access_token`; not
 * `author` or `max_tokens`), or its letters joined contain a SENSITIVE_JOINED name.
 */
export function isSensitiveKey(key: string): boolean {
  const joined = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (SENSITIVE_JOINED.test(joined)) return true;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => SENSITIVE_WORDS.has(word));
}

/** Capture settings after defaults. */
export interface ResolvedCapture {
  enabled: boolean;
  redact: (key: string, value: unknown) => unknown;
  maxLength: number;
}

/** The default redaction: the values of sensitive-looking keys (`isSensitiveKey`) become `'[REDACTED]'`. */
export function defaultRedact(key: string, value: unknown): unknown {
  return isSensitiveKey(key) ? REDACTED : value;
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
  /** Characters of a string worth reading: the captured text is cut shorter than this. */
  readable: number;
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
  if (typeof value === 'string') return redactString(value, walk, depth);
  let v = value;
  if (v !== null && typeof v === 'object') {
    // Buffer.toJSON writes a number per byte: only as many bytes as the cut text can show
    if (Buffer.isBuffer(v)) {
      const data = Array.from(v.subarray(0, Math.max(0, walk.left)));
      return redactDeep({ type: 'Buffer', data }, walk, depth, key);
    }
    // Blobs and streams: described, never read (binary views are read lazily below)
    if (!ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer)) {
      const opaque = describeOpaque(v);
      if (opaque !== undefined) return opaque;
    }
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = toJSON.call(v, key);
  }
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(v)) {
    // a header pair, ['Authorization', 'Bearer …']: its name is the value's key
    if (
      v.length === 2 &&
      typeof v[0] === 'string' &&
      PAIR_NAME.test(v[0]) &&
      typeof v[1] !== 'object'
    ) {
      walk.left -= 2;
      return [redactString(v[0], walk, depth + 1), redactMember(v[0], v[1], walk, depth)];
    }
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
  // a HAR-style pair, { name: 'Authorization', value: '…' }: its name is the value's key
  const pairName = view ? undefined : (record.name ?? record.key);
  const named = typeof pairName === 'string' && 'value' in record ? pairName : undefined;
  for (let i = 0; i < count && walk.left > 0; i++) {
    const k = keys ? keys[i]! : String(i);
    const item = redactMember(
      named !== undefined && k === 'value' ? named : k,
      record[k],
      walk,
      depth,
    );
    if (!written(item)) continue;
    walk.left--;
    setOwn(out, k, item);
  }
  return out;
}

/** What the first item of a two-item array is when the array is a name-value pair. */
const PAIR_NAME = /^[A-Za-z][\w.-]{0,100}$/;

/** The member `key` of an object (or a pair), through the hook, then redacted inside. */
function redactMember(key: string, member: unknown, walk: Walk, depth: number): unknown {
  const redacted = walk.redact(key, member);
  if (redacted !== member) walk.replaced++;
  return redactDeep(redacted, walk, depth + 1, key);
}

/**
 * A string: JSON text in it (an object, an array, or a JSON string of either: double-encoded) is
 * redacted inside and written back compactly when the hook replaced anything in it; in other text
 * the secrets `redactText` finds are replaced.
 */
function redactString(value: string, walk: Walk, depth: number): string {
  const text = value.length > walk.readable ? value.slice(0, walk.readable) : value;
  const parsed = parseJsonString(text);
  if (parsed !== text && depth < MAX_DEPTH) {
    const before = walk.replaced;
    if (typeof parsed === 'string') {
      // a JSON string holding JSON text: redact what it holds, keep the encoding
      const inner = redactString(parsed, walk, depth + 1);
      return walk.replaced === before ? text : JSON.stringify(inner);
    }
    if (parsed !== null && typeof parsed === 'object') {
      const redacted = redactDeep(parsed, walk, depth, '');
      return walk.replaced === before ? text : stringify(redacted);
    }
  }
  return redactText(text, walk);
}

/** Replaces `value` by the hook's answer for `key`, counted; undefined when the hook kept it. */
function replaceBy(walk: Walk, key: string, value: string): string | undefined {
  const r = walk.redact(key, value);
  if (r === value) return undefined;
  walk.replaced++;
  return String(r);
}

/**
 * A JSON member in text that did not parse (cut short): `"key": "value"` or `"key": 12`; the
 * value may be cut before its closing quote.
 */
const JSON_MEMBER = /"([^"\\\n]{1,100})"\s*:\s*(?:"((?:[^"\\]|\\[\s\S])*)(?:"|$)|(-?[\w.+-]+))/g;
/** The same inside a JSON string, its quotes escaped once: `\"key\":\"value\"`. */
const ESCAPED_JSON_MEMBER =
  /\\"([^"\\\n]{1,100})\\"\s*:\s*(?:\\"((?:[^"\\]|\\(?!")[\s\S])*)(?:\\"|$)|(-?[\w.+-]+))/g;
/** `key=value`: query and form parameters, command-line options, environment assignments. */
const KEY_VALUE =
  /(^|[\s?&;#,'"(])(-{0,2}[A-Za-z_][\w.-]{0,100})=("[^"]*"|'[^']*'|[^\s&;#,'"()]*)/g;
/** A header line: `Authorization: Bearer …`, `Cookie: …`. */
const HEADER_LINE = /(^|[\r\n])([A-Za-z][\w-]{0,100}):[ \t]*([^\r\n]*)/g;
/** A URL's `user:password@`. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s/:@]+):([^\s/@]+)@/gi;
/** A `Bearer …`, `Basic …` or `Token …` credential. */
const SCHEME_CREDENTIAL = /\b(Bearer|Basic|Token)\s+([A-Za-z0-9._~+/=-]{8,})/g;

/** Text with the secrets it shows by their shape replaced, each through the hook. */
function redactText(text: string, walk: Walk): string {
  const member =
    (quote: string) => (match: string, key: string, quoted?: string, bare?: string) => {
      const r = replaceBy(walk, key, quoted ?? bare ?? '');
      return r === undefined ? match : `${quote}"${key}${quote}":${quote}"${r}${quote}"`;
    };
  return text
    .replace(JSON_MEMBER, member(''))
    .replace(ESCAPED_JSON_MEMBER, member('\\'))
    .replace(KEY_VALUE, (match, lead: string, key: string, value: string) => {
      const r = replaceBy(walk, key.replace(/^-+/, ''), value);
      return r === undefined ? match : `${lead}${key}=${r}`;
    })
    .replace(HEADER_LINE, (match, lead: string, key: string, value: string) => {
      const r = replaceBy(walk, key, value);
      return r === undefined ? match : `${lead}${key}: ${r}`;
    })
    .replace(URL_PASSWORD, (match, user: string, password: string) => {
      const r = replaceBy(walk, 'password', password);
      return r === undefined ? match : `${user}:${r}@`;
    })
    .replace(SCHEME_CREDENTIAL, (match, scheme: string, credential: string) => {
      const r = replaceBy(walk, 'authorization', credential);
      return r === undefined ? match : `${scheme} ${r}`;
    });
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
  const walk: Walk = {
    redact: capture.redact,
    left: capture.maxLength + 1,
    replaced: 0,
    readable: 2 * capture.maxLength + 64,
  };
  const text = stringify(redactDeep(parseJsonString(value), walk, 0, ''));
  if (text.length <= capture.maxLength) return text;
  return `${text.slice(0, Math.max(0, capture.maxLength - 1))}…`;
}

/** Free text (an exception message): cut at `maxLength`, then the secrets `redactText` finds replaced. */
export function captureText(text: string, capture: ResolvedCapture): string {
  const cut = text.length > capture.maxLength ? `${text.slice(0, capture.maxLength - 1)}…` : text;
  return redactText(cut, { redact: capture.redact, left: 0, replaced: 0, readable: cut.length });
}
