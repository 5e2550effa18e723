import { createHash, hash } from 'node:crypto';
import { resultJson } from './canonical-json.js';

const VERBATIM_UP_TO = 64;
const NATIVE_HASH_FROM = 2048;

/** 53-bit non-cryptographic string hash (cyrb53), base 36. */
function quickHash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** Results of text up to this many characters are hashed whole; longer ones by sampled windows. */
const FULL_HASH_CHARS = 8 * 1024 * 1024;
const EDGE_CHARS = 2 * 1024 * 1024;
const WINDOWS = 8;
const WINDOW_CHARS = 256 * 1024;

/** SHA-1 of a long text's length, its first and last 2 Mi characters and 8 windows between. */
function sampledHash(text: string): string {
  const h = createHash('sha1').update(`${text.length}:`).update(text.slice(0, EDGE_CHARS));
  const middle = text.length - 2 * EDGE_CHARS - WINDOW_CHARS;
  for (let i = 1; i <= WINDOWS; i++) {
    const at = EDGE_CHARS + Math.floor((middle * i) / (WINDOWS + 1));
    h.update(text.slice(at, at + WINDOW_CHARS));
  }
  return h.update(text.slice(text.length - EDGE_CHARS)).digest('base64');
}

/** Characters of an error text its key reads: an error says what it is at its start. */
const ERROR_CHARS = 512;

/**
 * The key of a failed call's error: its first 512 characters with every run of digits read as
 * one `0` and whitespace runs as one space, hashed; so `line 27424: javac: command not found`
 * and `line 27478: javac: command not found` are the same error. Costs at most 512 characters
 * of a string result. A failure without error text (no result, an empty or non-string one) has no
 * key: it says nothing about being the same error.
 */
export function errorKey(result: unknown): string | undefined {
  if (typeof result !== 'string' || result.trim() === '') return undefined;
  const head = result.length > ERROR_CHARS ? result.slice(0, ERROR_CHARS) : result;
  return quickHash(head.replace(/\d+/g, '0').replace(/\s+/g, ' '));
}

/**
 * A short internal key of a tool result, for the no-progress, cycle and poll axes: it only
 * compares a result with recent ones, so short results stand for themselves, a fast 53-bit hash
 * serves medium ones and SHA-1 long ones (over sampled windows past 8 Mi characters, so a huge
 * result costs a bounded time: two that differ only between the windows compare equal).
 */
export function resultHash(result: unknown): string {
  const text = typeof result === 'string' ? result : resultJson(result ?? null);
  if (text.length <= VERBATIM_UP_TO) return text;
  if (text.length < NATIVE_HASH_FROM) return `#${quickHash(text)}`;
  return text.length <= FULL_HASH_CHARS
    ? `#${hash('sha1', text, 'base64')}`
    : `#${sampledHash(text)}`;
}
