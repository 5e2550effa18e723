import type { SpanRecord } from '../../../otlp/span.js';
import { nsToMs } from '../../common/index.js';

/** One generation of remembered keys: an open-addressing table of 64-bit key hashes. */
interface Generation {
  hi: Int32Array;
  lo: Int32Array;
  size: number;
  /** Latest start time (ms) of a span remembered here. */
  maxStartMs: number;
}

function fmix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/** Two 32-bit hashes of a (traceId, spanId) key, `hi` and `lo`, set without allocating. */
class KeyHash {
  hi = 0;
  lo = 0;

  /** Sets `hi` and `lo` to the hashes of (traceId, spanId); `lo` is never 0 when `hi` is. */
  of(traceId: string, spanId: string): void {
    let a = 0x811c9dc5;
    let b = 0x9747b28c;
    const mix = (s: string) => {
      for (let i = 0; i < s.length; i++) {
        const ch = s.charCodeAt(i);
        a = Math.imul(a ^ ch, 0x01000193);
        b = Math.imul(b ^ ch, 0x5bd1e995);
        b ^= b >>> 15;
      }
    };
    mix(traceId);
    a = Math.imul(a ^ 0x2f, 0x01000193);
    b = Math.imul(b ^ 0x2f, 0x5bd1e995);
    mix(spanId);
    this.hi = fmix(a);
    this.lo = fmix(b ^ traceId.length) | (this.hi === 0 ? 1 : 0);
  }
}

/** The hashed keys and start times (ms) of a batch's spans, computed once for check and add. */
export interface BatchKeys {
  hi: Int32Array;
  lo: Int32Array;
  startMs: Float64Array;
}

/** Hashes the (TraceId, SpanId) keys of `spans` and takes their start times, once. */
export function batchKeys(spans: readonly SpanRecord[]): BatchKeys {
  const n = spans.length;
  const keys = { hi: new Int32Array(n), lo: new Int32Array(n), startMs: new Float64Array(n) };
  const hash = new KeyHash();
  for (let i = 0; i < n; i++) {
    const s = spans[i]!;
    hash.of(s.traceId, s.spanId);
    keys.hi[i] = hash.hi;
    keys.lo[i] = hash.lo;
    keys.startMs[i] = nsToMs(s.startTimeUnixNano);
  }
  return keys;
}

/**
 * The (TraceId, SpanId) keys of the spans committed lately, so that the duplicate check asks
 * the database only about spans that may be stored already. It remembers at least the last
 * `capacity` keys, in two generations of fixed memory (16 bytes a key); when a generation is
 * dropped, spans starting no later than the latest start it held are no longer covered and go
 * to the database check again. A hit is not proof (hashes collide); only a miss of a covered
 * span is trusted.
 */
export class RecentSpanKeys {
  private current: Generation;
  private previous: Generation | undefined;
  private readonly mask: number;
  /** Every stored span starting at or after this time (ms) is remembered here. */
  private coveredFromMs: number;
  /** The key being looked up or added. */
  private readonly key = new KeyHash();

  constructor(
    private readonly capacity: number,
    coveredFromMs: number,
  ) {
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.mask = slots - 1;
    this.current = this.generation();
    this.coveredFromMs = coveredFromMs;
  }

  /** True when the span is surely not stored: covered by this memory and not in it. */
  surelyNew(traceId: string, spanId: string, startMs: number): boolean {
    if (startMs < this.coveredFromMs) return false;
    this.key.of(traceId, spanId);
    return this.unseen();
  }

  /** `surelyNew` of span `i` of a batch, from its `batchKeys`. */
  surelyNewAt(keys: BatchKeys, i: number): boolean {
    if (keys.startMs[i]! < this.coveredFromMs) return false;
    this.key.hi = keys.hi[i]!;
    this.key.lo = keys.lo[i]!;
    return this.unseen();
  }

  /** Remembers a committed span. */
  add(traceId: string, spanId: string, startMs: number): void {
    this.key.of(traceId, spanId);
    this.addHashed(startMs);
  }

  /** `add` of span `i` of a batch, from its `batchKeys`. */
  addAt(keys: BatchKeys, i: number): void {
    this.key.hi = keys.hi[i]!;
    this.key.lo = keys.lo[i]!;
    this.addHashed(keys.startMs[i]!);
  }

  private unseen(): boolean {
    return !this.has(this.current) && (this.previous === undefined || !this.has(this.previous));
  }

  /** Adds `key`. */
  private addHashed(startMs: number): void {
    if (!this.unseen()) return;
    if (this.current.size >= this.capacity) this.rotate();
    const g = this.current;
    const { hi: keyHi, lo: keyLo } = this.key;
    let i = keyLo & this.mask;
    while (g.hi[i] !== 0 || g.lo[i] !== 0) i = (i + 1) & this.mask;
    g.hi[i] = keyHi;
    g.lo[i] = keyLo;
    g.size++;
    if (startMs > g.maxStartMs) g.maxStartMs = startMs;
  }

  private has(g: Generation): boolean {
    const { hi: keyHi, lo: keyLo } = this.key;
    let i = keyLo & this.mask;
    for (;;) {
      const hi = g.hi[i]!;
      const lo = g.lo[i]!;
      if (hi === keyHi && lo === keyLo) return true;
      if (hi === 0 && lo === 0) return false;
      i = (i + 1) & this.mask;
    }
  }

  private rotate(): void {
    const dropped = this.previous;
    if (dropped !== undefined)
      this.coveredFromMs = Math.max(this.coveredFromMs, dropped.maxStartMs + 1);
    this.previous = this.current;
    this.current = dropped ?? this.generation();
    this.current.hi.fill(0);
    this.current.lo.fill(0);
    this.current.size = 0;
    this.current.maxStartMs = Number.NEGATIVE_INFINITY;
  }

  private generation(): Generation {
    const slots = this.mask + 1;
    return {
      hi: new Int32Array(slots),
      lo: new Int32Array(slots),
      size: 0,
      maxStartMs: Number.NEGATIVE_INFINITY,
    };
  }
}
