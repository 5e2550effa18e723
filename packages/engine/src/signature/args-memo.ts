/**
 * An exact memo of argument hashes for structured arguments. Looping agents send equal arguments
 * again and again, each time in a freshly parsed object, and hashing them means canonical JSON
 * plus SHA-256 every time. Here a fingerprint of the content (independent of key order) finds a
 * candidate entry, and a structural comparison with the entry's private copy confirms it, so a hit
 * returns exactly the hash the full computation gives. Only plain JSON data is memoised (plain
 * objects, arrays, strings, finite numbers, booleans, null); anything else, and values too large
 * to keep, take the full path.
 */

import { dropOldest } from '../drop-oldest.js';
import { fingerprintAt } from './signature-table.js';

/** A computed args hash with the signature strings last built from it. */
export interface Digest {
  readonly hash: string;
  /** The fingerprint of its signatures in a scope's table (`fingerprintAt(hash, 0)`). */
  readonly print: number;
  toolA: string | undefined;
  signatureA: string;
  toolB: string | undefined;
  signatureB: string;
}

interface Entry {
  /** A copy of the arguments, taken when their fingerprint is seen a second time. */
  readonly snapshot: unknown;
  readonly digest: Digest;
}

const MAX_ENTRIES = 256;
/** Fingerprints seen once, direct-mapped: a collision only delays or hastens an entry. */
const SEEN_SLOTS = 1024;
/**
 * While nothing repeats (`COLD_AFTER` first sightings in a row), only one call in `COLD_SAMPLE`
 * is fingerprinted: an agent that never repeats itself barely pays for the memo, and a loop that
 * starts is caught by the sampled calls within a few laps.
 */
const COLD_AFTER = 64;
const COLD_SAMPLE = 8;
/** Weight budget per value: one per node plus one per 32 characters of string. */
const MAX_WEIGHT = 1024;
const MAX_DEPTH = 32;
/** Strings longer than this are fingerprinted by samples; the comparison still reads all of them. */
const SAMPLED_FROM = 96;

let plain = true;
let budget = 0;

function textPrint(text: string, from: number, to: number, seed: number): number {
  let h = seed;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

function stringPrint(text: string): number {
  const n = text.length;
  budget -= n >> 5;
  if (n <= SAMPLED_FROM) return textPrint(text, 0, n, 0x811c9dc5 ^ n);
  const middle = n >> 1;
  let h = textPrint(text, 0, 32, 0x811c9dc5 ^ n);
  h = textPrint(text, middle - 16, middle + 16, h);
  return textPrint(text, n - 32, n, h);
}

/** Keys repeat across calls and rarely tell contents apart: their length and ends suffice. */
function keyPrint(key: string): number {
  const n = key.length;
  return n === 0 ? 0x7f4a7c15 : (n << 20) ^ (key.charCodeAt(0) << 10) ^ key.charCodeAt(n - 1);
}

function mix(a: number, b: number): number {
  const h = Math.imul(a ^ Math.imul(b, 0x85ebca6b), 0xc2b2ae35);
  return h ^ (h >>> 15);
}

function refuse(): number {
  plain = false;
  return 0;
}

function print(value: unknown, depth: number): number {
  if (--budget < 0) return refuse();
  if (value === null) return 0x3c6ef372;
  switch (typeof value) {
    case 'string':
      return stringPrint(value);
    case 'number':
      if ((value | 0) === value) return mix(0x27d4eb2f, value);
      return Number.isFinite(value) ? stringPrint(String(value)) ^ 0x165667b1 : refuse();
    case 'boolean':
      return value ? 0x1b873593 : 0x68e31da4;
    case 'object':
      if (depth >= MAX_DEPTH || hasToJson(value)) return refuse();
      return Array.isArray(value) ? arrayPrint(value, depth) : objectPrint(value, depth);
    default:
      return refuse();
  }
}

/**
 * Whether canonical JSON would call a toJSON of `value`: a non-enumerable one, an array's own or a
 * proxy's escapes the member checks (the prototypes' are checked once per call, see `digest`).
 */
function hasToJson(value: object): boolean {
  return (value as { toJSON?: unknown }).toJSON !== undefined;
}

function arrayPrint(items: unknown[], depth: number): number {
  // an Array subclass may bring its own toJSON
  if (Object.getPrototypeOf(items) !== Array.prototype) return refuse();
  let h = 0x2545f491 ^ items.length;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === undefined) return refuse();
    h = mix(h, print(item, depth + 1));
  }
  return h;
}

function objectPrint(value: object, depth: number): number {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return refuse();
  const record = value as Record<string, unknown>;
  // A sum of per-member prints: the same members in any insertion order print the same. An own
  // toJSON is a function member, refused like every function; an inherited one is checked per call.
  let h = 0x9e3779b9;
  for (const key in record) {
    const member = record[key];
    if (member === undefined || key === '__proto__') return refuse();
    h = (h + mix(keyPrint(key), print(member, depth + 1))) | 0;
  }
  return h;
}

/** An object's members as copied: keys in the original order, values alongside. */
class Members {
  constructor(
    readonly keys: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

/** Plain objects and arrays from a copy, to hash exactly what later calls are compared with. */
function plainOf(copy: unknown): unknown {
  if (Array.isArray(copy)) return copy.map(plainOf);
  if (!(copy instanceof Members)) return copy;
  return Object.fromEntries(copy.keys.map((key, i) => [key, plainOf(copy.values[i])]));
}

/** A private copy of plain data (checked by `print` first). */
function copyOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyOf);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  return new Members(
    keys,
    keys.map((key) => copyOf(record[key])),
  );
}

const MAX_UNORDERED_KEYS = 32;

/**
 * Whether `value` has the same canonical JSON as the plain data `snapshot`, member by member. Only
 * plain objects and arrays match a snapshot, so `value` need not have been checked by `print`.
 */
function same(value: unknown, snapshot: unknown): boolean {
  if (value === snapshot) return true;
  if (
    typeof value !== 'object' ||
    typeof snapshot !== 'object' ||
    value === null ||
    snapshot === null
  ) {
    return false;
  }
  // The toJSON lookups are written out per branch: each site then sees one kind of value (a
  // shared one saw objects and arrays of every shape, and its lookups went megamorphic).
  const proto = Object.getPrototypeOf(value);
  if (snapshot instanceof Members) {
    const record = value as Record<string, unknown>;
    return (
      (proto === Object.prototype || proto === null) &&
      record.toJSON === undefined &&
      sameMembers(record, snapshot)
    );
  }
  const items = snapshot as readonly unknown[];
  const array = value as unknown[] & { toJSON?: unknown };
  if (proto !== Array.prototype || array.length !== items.length || array.toJSON !== undefined) {
    return false;
  }
  for (let i = 0; i < items.length; i++) if (!same(array[i], items[i])) return false;
  return true;
}

function sameMembers(record: Record<string, unknown>, members: Members): boolean {
  let i = 0;
  for (const key in record) {
    if (key !== members.keys[i]) return sameReordered(record, members);
    if (!same(record[key], members.values[i])) return false;
    i++;
  }
  return i === members.keys.length;
}

/** The same members in another insertion order (canonical JSON sorts keys). */
function sameReordered(record: Record<string, unknown>, members: Members): boolean {
  const keys = Object.keys(record);
  // A miss is always safe (the hash is recomputed), so large reordered objects just miss.
  if (keys.length !== members.keys.length || keys.length > MAX_UNORDERED_KEYS) return false;
  for (const key of keys) {
    const at = members.keys.indexOf(key);
    if (at < 0 || !same(record[key], members.values[at])) return false;
  }
  return true;
}

/** Whether a toJSON was added to the prototypes of plain objects or arrays (then nothing is memoised). */
function inheritedToJson(): boolean {
  return (
    (Object.prototype as { toJSON?: unknown }).toJSON !== undefined ||
    (Array.prototype as { toJSON?: unknown }).toJSON !== undefined
  );
}

/** A new digest of an args hash, without signatures yet. */
export function newDigest(hash: string): Digest {
  return {
    hash,
    print: fingerprintAt(hash, 0),
    toolA: undefined,
    signatureA: '',
    toolB: undefined,
    signatureB: '',
  };
}

/**
 * Memo of structured arguments to their digest, bounded (oldest entry out first). A first sighting
 * only marks its fingerprint in a small table; a second sighting keeps a copy, against which every
 * later sighting is compared without building any text.
 */
export class ArgsMemo {
  readonly #entries = new Map<number, Entry>();
  readonly #seen = new Int32Array(SEEN_SLOTS);
  readonly #bucket: (fingerprint: number) => number;
  /** Fingerprinted calls in a row that repeated nothing; from `COLD_AFTER` on, most skip the memo. */
  #cold = 0;
  #skipped = 0;
  /** The two entries found or made last: a loop repeats them, and comparing costs less than printing. */
  #last: Entry | undefined;
  #beforeLast: Entry | undefined;

  /** `bucket` maps a fingerprint to its entry key: tests make every value collide with it. */
  constructor(bucket: (fingerprint: number) => number = (fingerprint) => fingerprint) {
    this.#bucket = bucket;
  }

  /** The digest of `args` (an object or array), from the memo or computed by `hashOf`. */
  digest(args: object, hashOf: (value: unknown) => string): Digest {
    if (this.#cold >= COLD_AFTER && ++this.#skipped % COLD_SAMPLE !== 0) {
      return newDigest(hashOf(args));
    }
    if (inheritedToJson()) {
      this.#cold++;
      return newDigest(hashOf(args));
    }
    const last = this.#last;
    if (last !== undefined && same(args, last.snapshot)) {
      this.#cold = 0;
      return last.digest;
    }
    const beforeLast = this.#beforeLast;
    if (beforeLast !== undefined && same(args, beforeLast.snapshot)) {
      this.#cold = 0;
      return this.#used(beforeLast).digest;
    }
    plain = true;
    budget = MAX_WEIGHT;
    const key = this.#bucket(print(args, 0));
    if (!plain) {
      this.#cold++;
      return newDigest(hashOf(args));
    }
    const entry = this.#entries.get(key);
    if (entry !== undefined && same(args, entry.snapshot)) {
      this.#cold = 0;
      return this.#used(entry).digest;
    }
    const slot = key & (SEEN_SLOTS - 1);
    if (entry === undefined && this.#seen[slot] !== key) {
      this.#seen[slot] = key;
      this.#cold++;
      return newDigest(hashOf(args));
    }
    this.#cold = 0;
    // Plain data without toJSON, read once into the copy: the copy is what gets hashed, so an
    // accessor that returns something else on the next read cannot pair a copy with another hash.
    const snapshot = copyOf(args);
    const digest = newDigest(hashOf(plainOf(snapshot)));
    if (entry !== undefined) this.#entries.delete(key);
    else if (this.#entries.size >= MAX_ENTRIES) dropOldest(this.#entries, MAX_ENTRIES / 8);
    const added = { snapshot, digest };
    this.#entries.set(key, added);
    this.#used(added);
    return digest;
  }

  #used(entry: Entry): Entry {
    if (entry !== this.#last) {
      this.#beforeLast = this.#last;
      this.#last = entry;
    }
    return entry;
  }
}
