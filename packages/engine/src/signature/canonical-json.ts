// Canonical JSON (contract section 1), the writer behind argsHash: every call with new arguments
// runs it, so it builds as few strings as it can.
import { dropOldest } from '../drop-oldest.js';
import { integerIndexedText, isIntegerArray, nextInKeyOrder } from './integer-array-text.js';
import { enclosing, isParent, MAX_NESTING, type Parents, TOO_DEEP } from './nesting.js';
import { Identities, opaqueText } from './opaque.js';
import { readable } from './readable.js';

const OMIT = Symbol('omit');
type Piece = string | typeof OMIT;

const TOO_DEEP_TEXT = `"${TOO_DEEP}"`;

/** JSON text of a string: most strings need no escaping, and quoting them beats JSON.stringify. */
function quote(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}

const KEY_PREFIXES_MAX = 1024;
const KEY_PREFIX_MAX_LENGTH = 64;
/** `"key":` per key: arguments of one tool bring the same keys call after call. */
const keyPrefixes = new Map<string, string>();

function keyPrefix(key: string): string {
  let prefix = keyPrefixes.get(key);
  if (prefix !== undefined) return prefix;
  prefix = `${quote(key)}:`;
  if (key.length <= KEY_PREFIX_MAX_LENGTH) {
    if (keyPrefixes.size >= KEY_PREFIXES_MAX) dropOldest(keyPrefixes, KEY_PREFIXES_MAX / 8);
    keyPrefixes.set(key, prefix);
  }
  return prefix;
}

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
  return inner.depth > MAX_NESTING ? TOO_DEEP_TEXT : objectText(member, inner);
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

/** Blobs and streams are written by identity: the same object, the same text, in this process. */
const identities = new Identities();

/** Arrays at least this long whose items are all primitives are written by JSON.stringify. */
const NATIVE_ARRAY_FROM = 256;

/** Whether JSON.stringify writes every item as the canonical writer does (no object, no bigint). */
function allPrimitive(items: readonly unknown[]): boolean {
  for (let i = 0; i < items.length; i++) {
    const t = typeof items[i];
    if ((t === 'object' && items[i] !== null) || t === 'bigint') return false;
  }
  return true;
}

function objectText(value: object, parents: Parents | undefined): Piece {
  const opaque = opaqueText(value, identities);
  if (opaque !== undefined) return opaque;
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
    // the same text, natively: a million numbers took seconds item by item
    if (value.length >= NATIVE_ARRAY_FROM && allPrimitive(value)) return JSON.stringify(value);
    text = '[';
    for (let i = 0; i < value.length; i++) {
      const item = memberText(value[i], value, parents);
      if (i > 0) text += ',';
      text += item === OMIT ? 'null' : item;
    }
    return `${text}]`;
  }
  if (writingResult) {
    const content = contentOf(value);
    if (content !== undefined) {
      const item = memberText(content[1], value, parents);
      return `{${keyPrefix(content[0])}${item === OMIT ? 'null' : item}}`;
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
    // one string added at a time: a template of all four built a string per member first
    if (text.length > 1) text += ',';
    text += keyPrefix(key);
    text += item;
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
