// The signatures of one scope, looked up on every call. A Map keyed by the signature string hashed
// each new signature in full (its text built by concatenation, flattened first): about a sixth of
// a call with new arguments. Here the slot comes from the signature's hash digits instead.

/** Characters of a hash that make a fingerprint: 32 bits of SHA-256 when they are hex digits. */
const PRINT_CHARS = 8;
/** Hex digits of the hash in a signature, after its tool and colon (`signatureFromHash`). */
const SIGNATURE_HEX = 16;
const FIRST_CAPACITY = 4;

/**
 * A fingerprint of the text a signature's hash starts with: `fingerprintAt(hash, 0)` for an args
 * hash equals `signatureFingerprint` of every signature built from it. Any string works; a poor
 * fingerprint only costs comparisons.
 */
export function fingerprintAt(text: string, from: number): number {
  let h = 0x811c9dc5;
  const to = Math.min(from + PRINT_CHARS, text.length);
  for (let i = Math.max(from, 0); i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  // a small integer, so the table stores it unboxed
  return (h ^ (h >>> 15)) & 0x3fffffff;
}

/** The fingerprint of a signature, read from its hash digits. */
export function signatureFingerprint(signature: string): number {
  return fingerprintAt(signature, signature.length - SIGNATURE_HEX);
}

/**
 * A table of signature states: open addressing with linear probing, at most three quarters full,
 * the signature, fingerprint and value of each slot side by side in one array (a scope holds the
 * array itself: one object less to reach on every call). Nothing is ever deleted: a scope forgets
 * a whole table at once (see `signatureState` in ../state.ts).
 */
export type SignatureTable = unknown[];

/** An empty table with room for `capacity` slots (a power of 2). */
export function newTable(capacity = FIRST_CAPACITY): SignatureTable {
  return new Array(capacity * 3).fill(undefined);
}

/** The value stored for `signature`, whose fingerprint is `print`. */
export function tableGet<V>(
  slots: SignatureTable,
  signature: string,
  print: number,
): V | undefined {
  const mask = slots.length / 3 - 1;
  for (let i = print & mask; ; i = (i + 1) & mask) {
    const key = slots[i * 3];
    if (key === undefined) return undefined;
    if (slots[i * 3 + 1] === print && key === signature) return slots[i * 3 + 2] as V;
  }
}

/**
 * Stores `value` for a signature not in the table, which holds `size` entries before it; returns
 * the table, a larger one when it had to grow.
 */
export function tableAdd(
  slots: SignatureTable,
  size: number,
  signature: string,
  print: number,
  value: unknown,
): SignatureTable {
  let table = slots;
  if ((size + 1) * 4 > table.length) table = grown(slots);
  put(table, signature, print, value);
  return table;
}

/** Every stored value. */
export function* tableValues<V>(slots: SignatureTable): Iterable<V> {
  for (let i = 0; i < slots.length; i += 3) if (slots[i] !== undefined) yield slots[i + 2] as V;
}

function put(slots: SignatureTable, signature: unknown, print: number, value: unknown): void {
  const mask = slots.length / 3 - 1;
  let i = print & mask;
  while (slots[i * 3] !== undefined) i = (i + 1) & mask;
  slots[i * 3] = signature;
  slots[i * 3 + 1] = print;
  slots[i * 3 + 2] = value;
}

function grown(old: SignatureTable): SignatureTable {
  const slots = newTable((old.length / 3) * 2);
  for (let i = 0; i < old.length; i += 3) {
    if (old[i] !== undefined) put(slots, old[i], old[i + 1] as number, old[i + 2]);
  }
  return slots;
}
