import { isUtf8 } from 'node:buffer';
import { OtlpFormatError } from './model.js';

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Protobuf wire types. */
export const WIRE = { VARINT: 0, I64: 1, LEN: 2, I32: 5 } as const;

const INTERN_SLOTS = 4096;
const INTERN_MAX = 64;

/**
 * Short ASCII strings decoded before, in a direct-mapped cache: attribute keys and most values
 * (tool names, actions, scopes) repeat from span to span and request to request, so the same bytes
 * give the same string. Kept by whoever decodes many requests (a ProtobufDecoder).
 */
export class StringTable {
  readonly texts: (string | undefined)[] = new Array(INTERN_SLOTS);
  /** The bytes of each slot's string, compared four at a time with the bytes being decoded. */
  readonly bytes = new Uint8Array(INTERN_SLOTS * INTERN_MAX);
  readonly view = new DataView(this.bytes.buffer);
}

/** A bounds-checked cursor over protobuf wire data. After `next()`, `wire` holds the wire type. */
export class ProtoReader {
  pos = 0;
  wire = 0;
  private readonly view: DataView;
  constructor(
    readonly buf: Buffer,
    private readonly strings: StringTable,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  fail(what: string): never {
    throw new OtlpFormatError(`invalid protobuf at byte ${this.pos}: ${what}`);
  }

  /** A varint up to 2^53 as a number (larger values lose precision; used for tags/lengths/enums). */
  uint(end: number): number {
    const buf = this.buf;
    if (this.pos < end) {
      const first = buf[this.pos]!;
      if (first < 0x80) {
        this.pos++;
        return first;
      }
    }
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) this.fail('truncated varint');
      const b = buf[this.pos++]!;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    return this.fail('varint longer than 10 bytes');
  }

  /** A varint as a signed 64-bit integer: a number when safe, else a bigint. */
  int64(end: number): number | bigint {
    const buf = this.buf;
    const start = this.pos;
    // fast path: non-negative values below 2^49 (up to 7 bytes)
    let small = 0;
    let mul = 1;
    for (let i = 0; i < 7 && start + i < end; i++) {
      const b = buf[start + i]!;
      small += (b & 0x7f) * mul;
      if (b < 0x80) {
        this.pos = start + i + 1;
        return small;
      }
      mul *= 128;
    }
    let value = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) this.fail('truncated varint');
      const b = buf[this.pos++]!;
      value |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        const signed = BigInt.asIntN(64, value);
        return signed >= BigInt(Number.MIN_SAFE_INTEGER) &&
          signed <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(signed)
          : signed;
      }
      shift += 7n;
    }
    return this.fail('varint longer than 10 bytes');
  }

  /** Reads a tag: returns the field number and leaves the wire type in `wire`. */
  next(end: number): number {
    const t = this.uint(end);
    const field = t < 0x80000000 ? t >>> 3 : Math.floor(t / 8);
    if (field === 0) this.fail('field number 0');
    this.wire = t & 7;
    return field;
  }

  /** The end offset of a length-delimited field starting at the cursor. */
  lenEnd(end: number): number {
    const len = this.uint(end);
    const stop = this.pos + len;
    if (stop > end) this.fail(`length ${len} runs past the end of its message`);
    return stop;
  }

  fixed64(end: number): bigint {
    if (this.pos + 8 > end) this.fail('truncated fixed64');
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  double(end: number): number {
    if (this.pos + 8 > end) this.fail('truncated double');
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  string(end: number): string {
    const stop = this.lenEnd(end);
    const start = this.pos;
    this.pos = stop;
    const length = stop - start;
    if (length === 0) return '';
    if (length > INTERN_MAX) return this.utf8(start, stop);
    // hash four bytes at a time, and OR them together to see whether any is not ASCII
    const view = this.view;
    let h = length;
    let bits = 0;
    let i = start;
    for (const last = stop - 4; i <= last; i += 4) {
      const w = view.getInt32(i, true);
      bits |= w;
      h = Math.imul(h ^ w, 0x01000193);
    }
    const buf = this.buf;
    for (; i < stop; i++) {
      const b = buf[i]!;
      bits |= b;
      h = Math.imul(h ^ b, 0x01000193);
    }
    if ((bits & 0x80808080) !== 0) return this.utf8(start, stop);
    h ^= h >>> 15;
    const slot = (h ^ (h >>> 7)) & (INTERN_SLOTS - 1);
    const strings = this.strings;
    const cached = strings.texts[slot];
    const base = slot * INTERN_MAX;
    if (cached !== undefined && cached.length === length) {
      const seen = strings.view;
      let j = 0;
      for (const last = length - 4; j <= last; j += 4)
        if (seen.getInt32(base + j, true) !== view.getInt32(start + j, true)) break;
      if (j > length - 4) {
        const seenBytes = strings.bytes;
        while (j < length && seenBytes[base + j] === buf[start + j]) j++;
        if (j === length) return cached;
      }
    }
    const text = buf.toString('latin1', start, stop);
    strings.texts[slot] = text;
    const bytes = strings.bytes;
    for (let j = 0; j < length; j++) bytes[base + j] = buf[start + j]!;
    return text;
  }

  /** Text of bytes that must be UTF-8, as protobuf string fields are (the Collector refuses others). */
  private utf8(start: number, stop: number): string {
    const bytes = this.buf.subarray(start, stop);
    if (!isUtf8(bytes)) {
      this.pos = start;
      this.fail('string field is not valid UTF-8');
    }
    return bytes.toString('utf8');
  }

  /** Bytes as lowercase hex (for ids). */
  hex(end: number): string {
    const stop = this.lenEnd(end);
    const start = this.pos;
    this.pos = stop;
    if (stop - start > 8) return this.buf.toString('hex', start, stop);
    let s = '';
    for (let i = start; i < stop; i++) s += HEX[this.buf[i]!];
    return s;
  }

  base64(end: number): string {
    const stop = this.lenEnd(end);
    const s = this.buf.toString('base64', this.pos, stop);
    this.pos = stop;
    return s;
  }

  /** Skips a field of an unknown number. */
  skip(wire: number, end: number): void {
    if (wire === WIRE.VARINT) this.uint(end);
    else if (wire === WIRE.I64) this.advance(8, end);
    else if (wire === WIRE.LEN) this.pos = this.lenEnd(end);
    else if (wire === WIRE.I32) this.advance(4, end);
    else this.fail(`unsupported wire type ${wire}`);
  }

  advance(n: number, end: number): void {
    if (this.pos + n > end) this.fail('truncated field');
    this.pos += n;
  }

  /** Fails unless a known field has the wire type its schema declares. */
  expect(expected: number, what: string): void {
    if (this.wire !== expected)
      this.fail(`${what} has wire type ${this.wire}, expected ${expected}`);
  }
}
