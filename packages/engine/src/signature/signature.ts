import { hash } from 'node:crypto';
import { dropOldest } from '../drop-oldest.js';
import { ArgsMemo, type Digest, newDigest } from './args-memo.js';
import { canonicalJson } from './canonical-json.js';
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
