import { hash } from 'node:crypto';
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

/**
 * A short internal key of a tool result, for the no-progress, cycle and poll axes: it only
 * compares a result with recent ones, so short results stand for themselves, a fast 53-bit hash
 * serves medium ones and SHA-1 long ones.
 */
export function resultHash(result: unknown): string {
  const text = typeof result === 'string' ? result : resultJson(result ?? null);
  if (text.length <= VERBATIM_UP_TO) return text;
  return text.length < NATIVE_HASH_FROM
    ? `#${quickHash(text)}`
    : `#${hash('sha1', text, 'base64')}`;
}
