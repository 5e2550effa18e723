import { hash } from 'node:crypto';
import { ArgsMemo, type Digest, newDigest } from './args-memo.js';
import { dropOldest } from './drop-oldest.js';
import { integerIndexedText, isIntegerArray, nextInKeyOrder } from './integer-array-text.js';
import { enclosing, isParent, MAX_NESTING, type Parents, TOO_DEEP } from './nesting.js';
import { readable } from './readable.js';

const HEX16 = 16;

/** Characters a JSON text can start with (after whitespace): others are never parsed. */
const JSON_START = /^[\s]*[[{"\-0-9tfn]/;

/**
 * Arguments as the engine hashes them (contract section 1): a JSON text (as models emit them) is
 * parsed first, a string that is not JSON stays a string, `undefined` becomes `{}`.
 */
export function normalizeArgs(args: unknown): unknown {
  if (args === undefined) return {};
  if (typeof args === 'string' && JSON_START.test(args)) {
    try {
      return JSON.parse(args);
    } catch {
      return args;
    }
  }
  return args;
}

const OMIT = Symbol('omit');

/** JSON text of a string: most strings need no escaping, and quoting them beats JSON.stringify. */
function quote(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}
type Piece = string | typeof OMIT;

/** Sorts keys by UTF-16 code units in place: insertion sort for the usual few (already sorted: one pass). */
function sortKeys(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
}

function valueText(value: unknown, parents: Parents | undefined): Piece {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      return objectText(value, parents);
    default:
      // undefined, functions and symbols: dropped from objects, null in arrays (as JSON.stringify)
      return OMIT;
  }
}

/** A member of `owner`: nested objects get the chain of enclosing objects, primitives need none. */
function memberText(member: unknown, owner: object, parents: Parents | undefined): Piece {
  if (typeof member !== 'object' || member === null) return valueText(member, undefined);
  const inner = enclosing(owner, parents);
  return inner.depth > MAX_NESTING ? `"${TOO_DEEP}"` : objectText(member, inner);
}

/** A typed array whose own keys are exactly its indices (no property added to it). */
function isIndexed(value: object, keys: readonly string[]): value is ArrayLike<unknown> {
  return (
    ArrayBuffer.isView(value) &&
    !(value instanceof DataView) &&
    keys.length === (value as unknown as ArrayLike<unknown>).length
  );
}

/**
 * A typed array as an object of its indices, keys in sorted order ("0", "1", "10", "100", ...)
 * walked digit by digit: sorting a megabyte's worth of index strings took seconds.
 */
function indexedText(value: ArrayLike<unknown>, parents: Parents | undefined): string {
  const n = value.length;
  if (n === 0) return '{}';
  if (isIntegerArray(value)) return integerIndexedText(value);
  const parts: string[] = [];
  for (let i = 0, visited = 1; ; visited++) {
    const item = memberText(value[i], value, parents);
    if (item !== OMIT) parts.push(`"${i}":${item}`);
    if (visited === n) break;
    i = nextInKeyOrder(i, n);
  }
  return `{${parts.join(',')}}`;
}

/** Whether a tool result is being written (`resultJson`), not arguments. */
let writingResult = false;

/** What a Map, Set or Error holds, under a key naming its kind; undefined for other objects. */
function contentOf(value: object): [string, unknown] | undefined {
  if (value instanceof Map) return ['[Map]', [...value]];
  if (value instanceof Set) return ['[Set]', [...value]];
  if (value instanceof Error)
    return ['[Error]', { ...value, message: value.message, name: value.name }];
  return undefined;
}

function objectText(value: object, parents: Parents | undefined): Piece {
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON !== 'function') return structureText(value, parents);
  // As JSON.stringify: one toJSON call per value, not again on what it returns (itself, say).
  const replaced = withJson.toJSON();
  return typeof replaced === 'object' && replaced !== null
    ? structureText(replaced, parents)
    : valueText(replaced, parents);
}

/** An object or array without calling its toJSON. */
function structureText(value: object, parents: Parents | undefined): Piece {
  if (isParent(parents, value)) return '"[Circular]"';
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) {
      const item = memberText(value[i], value, parents);
      text += (i > 0 ? ',' : '') + (item === OMIT ? 'null' : item);
    }
    return `${text}]`;
  }
  if (writingResult) {
    const content = contentOf(value);
    if (content !== undefined) {
      const [kind, held] = content;
      const text = memberText(held, value, parents);
      return `{${quote(kind)}:${text === OMIT ? 'null' : text}}`;
    }
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (isIndexed(value, keys)) return indexedText(value, parents);
  sortKeys(keys);
  text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = memberText(record[key], value, parents);
    if (item === OMIT) continue;
    text += `${text.length > 1 ? ',' : ''}${quote(key)}:${item}`;
  }
  return `${text}}`;
}

/**
 * Canonical JSON (contract section 1): keys sorted by UTF-16 code units, no whitespace,
 * non-ASCII characters as themselves, numbers as JavaScript prints them.
 */
export function canonicalJson(value: unknown): string {
  return writeJson(value, false);
}

/**
 * Canonical JSON of a tool result, as the no-progress, cycle and poll axes compare them: a Map,
 * Set or Error, which JSON writes as `{}` whatever it holds, is written with its content.
 */
export function resultJson(value: unknown): string {
  return writeJson(value, true);
}

function writeJson(value: unknown, result: boolean): string {
  // saved and restored: a toJSON may hash arguments while a result is being written
  const outer = writingResult;
  writingResult = result;
  let text: Piece;
  try {
    text = valueText(value, undefined);
  } catch {
    // a getter, toJSON or proxy trap threw: write what can be read, "[Unreadable]" for the rest
    text = valueText(readable(value), undefined);
  } finally {
    writingResult = outer;
  }
  return text === OMIT ? 'null' : text;
}

function withoutKeys(args: unknown, ignore: readonly string[]): unknown {
  if (ignore.length === 0 || args === null || typeof args !== 'object' || Array.isArray(args)) {
    return args;
  }
  // fromEntries defines members: assigning a "__proto__" key would set the prototype instead
  return Object.fromEntries(Object.entries(args).filter(([key]) => !ignore.includes(key)));
}

const CACHE_MAX_ENTRIES = 1024;
const CACHE_MAX_TEXT = 4096;

/** The digests of raw JSON strings as models emit them, bounded (oldest entry out first). */
class RawStringMemo {
  readonly #entries = new Map<string, Digest>();

  digest(text: string): Digest {
    let digest = this.#entries.get(text);
    if (digest !== undefined) return digest;
    digest = newDigest(canonicalHash(normalizeArgs(text)));
    if (text.length <= CACHE_MAX_TEXT) {
      if (this.#entries.size >= CACHE_MAX_ENTRIES) dropOldest(this.#entries, CACHE_MAX_ENTRIES / 8);
      this.#entries.set(text, digest);
    }
    return digest;
  }
}

const byRawString = new RawStringMemo();
const byContent = new ArgsMemo();

/** SHA-256 of the canonical JSON of a value, hex. */
function canonicalHash(value: unknown): string {
  return hash('sha256', canonicalJson(value), 'hex');
}

/** The args hash of a call as a digest that also caches its signature strings. */
export function argsDigest(args: unknown, ignoreArgs: readonly string[]): Digest {
  if (typeof args === 'string' && ignoreArgs.length === 0) return byRawString.digest(args);
  const normal = normalizeArgs(args);
  try {
    const value = withoutKeys(normal, ignoreArgs);
    return typeof value === 'object' && value !== null
      ? byContent.digest(value, canonicalHash)
      : newDigest(canonicalHash(value));
  } catch {
    // reading the arguments threw (a getter or proxy trap): hash what can be read
    return newDigest(canonicalHash(withoutKeys(readable(normal), ignoreArgs)));
  }
}

/** Lowercase hex SHA-256 of the canonical JSON of the arguments (contract section 1). */
export function argsHash(args: unknown, ignoreArgs: readonly string[] = []): string {
  return argsDigest(args, ignoreArgs).hash;
}

/** The signature of `tool` with a digest's hash, built once per digest and tool. */
export function digestSignature(tool: string, digest: Digest): string {
  if (digest.toolA === tool) return digest.signatureA;
  if (digest.toolB === tool) return digest.signatureB;
  const signature = signatureFromHash(tool, digest.hash);
  // Two slots: one argument set called alternately by two tools keeps both strings.
  digest.toolB = digest.toolA;
  digest.signatureB = digest.signatureA;
  digest.toolA = tool;
  digest.signatureA = signature;
  return signature;
}

/** `<tool>:<first 16 hex digits of argsHash>`. */
export function signatureOf(
  tool: string,
  args: unknown,
  ignoreArgs: readonly string[] = [],
): string {
  return `${tool}:${argsHash(args, ignoreArgs).slice(0, HEX16)}`;
}

/** The signature for an already computed args hash. */
export function signatureFromHash(tool: string, fullHash: string): string {
  return `${tool}:${fullHash.slice(0, HEX16)}`;
}
