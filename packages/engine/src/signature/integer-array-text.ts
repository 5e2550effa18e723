// Integer typed arrays in canonical JSON: written, as JSON.stringify writes a typed array, as the
// object of their indices with keys in sorted order, straight into one byte buffer.
import { Buffer } from 'node:buffer';

type IntegerArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array;

export function isIntegerArray(value: ArrayLike<unknown>): value is IntegerArray {
  return (
    value instanceof Uint8Array ||
    value instanceof Int8Array ||
    value instanceof Uint8ClampedArray ||
    value instanceof Int16Array ||
    value instanceof Uint16Array ||
    value instanceof Int32Array ||
    value instanceof Uint32Array
  );
}

/** Writes the decimal digits of a non-negative integer at `at`; returns the end. */
function writeDigits(out: Uint8Array, at: number, value: number): number {
  let end = at + 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) end++;
  let rest = value;
  for (let pos = end - 1; pos >= at; pos--) {
    out[pos] = 48 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return end;
}

/** The index after `i` when 0..n-1 are ordered as their decimal strings ("1", "10", "100", "11"). */
export function nextInKeyOrder(i: number, n: number): number {
  if (i !== 0 && i * 10 < n) return i * 10;
  let next = i;
  while (next % 10 === 9 || next + 1 >= n) next = Math.floor(next / 10);
  return next + 1;
}

/**
 * `indexedText` for integer arrays, written as ASCII bytes into one buffer: a string per element
 * left two million small strings to the garbage collector for a 2 MB argument.
 */
export function integerIndexedText(value: IntegerArray): string {
  const n = value.length;
  // per element at most: "4294967295":-2147483648, (10 + 2 + 1 + 11 + 1 bytes)
  const out = Buffer.allocUnsafe(n * 25 + 2);
  let at = 0;
  out[at++] = 0x7b; // {
  for (let i = 0, visited = 1; ; visited++) {
    out[at++] = 0x22; // "
    at = writeDigits(out, at, i);
    out[at++] = 0x22;
    out[at++] = 0x3a; // :
    const item = value[i]!;
    if (item < 0) out[at++] = 0x2d; // -
    at = writeDigits(out, at, Math.abs(item));
    if (visited === n) break;
    out[at++] = 0x2c; // ,
    i = nextInKeyOrder(i, n);
  }
  out[at++] = 0x7d; // }
  return out.toString('latin1', 0, at);
}
