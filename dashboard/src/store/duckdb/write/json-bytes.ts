// A staging file built as UTF-8 bytes, byte for byte what JSON.stringify of the same values
// followed by a UTF-8 encoder writes: the ingest path stages every span this way, so building a
// string per line, joining the lines and encoding the text again cost more than the bytes.

/** Bytes kept between files; a larger buffer (a huge batch) is let go after its file. */
const KEEP_BYTES = 64 << 20;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A growable byte buffer of JSON text. */
export class JsonBytes {
  buf: Buffer = Buffer.allocUnsafe(1 << 16);
  pos = 0;
  /** Counts the resets: offsets remembered from an earlier file are no longer valid. */
  files = 0;

  /** Empties the buffer for the next file. */
  reset(): void {
    if (this.buf.length > KEEP_BYTES) this.buf = Buffer.allocUnsafe(1 << 16);
    this.pos = 0;
    this.files++;
  }

  /** The bytes written since the last reset (a view, valid until the next write). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Makes room for `n` more bytes. */
  room(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** One ASCII byte. */
  byte(c: number): void {
    this.room(1);
    this.buf[this.pos++] = c;
  }

  /** Text known to be ASCII that needs no escaping (keys, punctuation, digits). */
  ascii(text: string): void {
    const n = text.length;
    this.room(n);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < n; i++) buf[pos++] = text.charCodeAt(i);
    this.pos = pos;
  }

  /** A JSON string, quoted and escaped as JSON.stringify does. */
  string(text: string): void {
    const n = text.length;
    // at most 6 bytes a UTF-16 unit (\u001f), and the quotes
    this.room(n * 6 + 2);
    const buf = this.buf;
    const start = this.pos;
    let pos = start;
    buf[pos++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f) {
        // escapes and non-ASCII: JSON.stringify's text, UTF-8 encoded (a lone surrogate is escaped)
        this.pos = start + buf.write(JSON.stringify(text), start, 'utf8');
        return;
      }
      buf[pos++] = c;
    }
    buf[pos++] = 0x22;
    this.pos = pos;
  }

  /** A number as JSON.stringify writes it (`null` when not finite). */
  number(value: number): void {
    if (Number.isSafeInteger(value)) {
      if (value < 0) {
        this.byte(0x2d);
        this.digits(-value, 0);
      } else this.digits(value, 0);
    } else this.ascii(Number.isFinite(value) ? String(value) : 'null');
  }

  /** `true` or `false`. */
  boolean(value: boolean): void {
    this.ascii(value ? 'true' : 'false');
  }

  /** A non-negative bigint as a JSON string of its decimal digits. */
  bigintString(value: bigint): void {
    this.byte(0x22);
    if (value <= MAX_SAFE) this.digits(Number(value), 0);
    else this.ascii(value.toString());
    this.byte(0x22);
  }

  /** A non-negative safe integer in decimal, zero-padded to `width` digits. */
  digits(value: number, width: number): void {
    if (value < 1e9) this.smallDigits(value, width);
    else {
      // the high part, then nine digits: int32 arithmetic, which a division chain on doubles is not
      const high = Math.floor(value / 1e9);
      this.smallDigits(high, width - 9);
      this.smallDigits(value - high * 1e9, 9);
    }
  }

  /** `digits` of a value below 10^9. */
  private smallDigits(value: number, width: number): void {
    let v = value | 0;
    let n = 1;
    for (let x = v; x >= 10; x = (x / 10) | 0) n++;
    if (n < width) n = width;
    this.room(n);
    const buf = this.buf;
    const end = this.pos + n;
    for (let i = end - 1; i >= this.pos; i--) {
      buf[i] = 0x30 + (v % 10);
      v = (v / 10) | 0;
    }
    this.pos = end;
  }

  /** Appends a copy of bytes written earlier since the last reset, [start, end). */
  again(start: number, end: number): void {
    this.room(end - start);
    this.buf.copyWithin(this.pos, start, end);
    this.pos += end - start;
  }

  /**
   * A map of strings as a JSON object, in JSON.stringify's key order; with `omit`, without the
   * keys `omit(key, bits)` is true of.
   */
  stringMap(
    map: Record<string, string>,
    omit?: (key: string, bits: number) => boolean,
    bits = 0,
  ): void {
    this.byte(0x7b);
    let first = true;
    for (const key of Object.keys(map)) {
      if (omit?.(key, bits)) continue;
      if (!first) this.byte(0x2c);
      first = false;
      this.string(key);
      this.byte(0x3a);
      this.string(map[key]!);
    }
    this.byte(0x7d);
  }

  /** A JSON array of `items`, each written by `write`. */
  list<T>(items: readonly T[], write: (out: this, item: T) => void): void {
    this.byte(0x5b);
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.byte(0x2c);
      write(this, items[i]!);
    }
    this.byte(0x5d);
  }

  /** A string, number or boolean as JSON.stringify writes it (anything else as null). */
  scalar(value: unknown): void {
    if (typeof value === 'string') this.string(value);
    else if (typeof value === 'number') this.number(value);
    else this.ascii(value === true ? 'true' : value === false ? 'false' : 'null');
  }
}

/**
 * Writes `count` NDJSON lines into `out` (reset first), line `i` by `writeLine(i)`; returns the
 * longest line's length in bytes (read_json's buffer is sized from it).
 */
export function writeLines(out: JsonBytes, count: number, writeLine: (i: number) => void): number {
  out.reset();
  let longest = 0;
  for (let i = 0; i < count; i++) {
    if (i > 0) out.byte(0x0a);
    const start = out.pos;
    writeLine(i);
    if (out.pos - start > longest) longest = out.pos - start;
  }
  return longest;
}

/** Writes one row (its arguments `row`) into `out`. */
export type RowWriter<O extends JsonBytes, A extends unknown[]> = (out: O, ...row: A) => void;

/**
 * One member of the JSON objects an `objectWriter` writes: the property `field` of the row's
 * first argument (a string, a number, or either: `as`, default scalar), or a value written by
 * `write`, under `key`; without a key, `write` writes members of its own, keys and leading commas
 * included (never the first member).
 */
export type Member<O extends JsonBytes, A extends unknown[]> =
  | { readonly key: string; readonly field: string; readonly as?: 'string' | 'number' | 'scalar' }
  | { readonly key: string; readonly write: RowWriter<O, A> }
  | { readonly key?: undefined; readonly write: RowWriter<O, A> };

/**
 * A writer of JSON objects with these members in this order (keys ASCII, needing no escape):
 * the bytes of JSON.stringify of an object whose own keys are exactly these, in this order.
 * With `braces` false it writes the members alone, each after a comma. The writer is generated
 * once, as straight-line code with a call site of its own per member: a loop over the members,
 * or one function per member called from one place, left every call megamorphic and cost the
 * hourly rollup row 1.6 µs against 0.6 µs written out by hand.
 */
export function objectWriter<O extends JsonBytes, A extends unknown[]>(
  members: readonly Member<O, A>[],
  braces = true,
): RowWriter<O, A> {
  const names: string[] = [];
  const values: unknown[] = [];
  const lines = members.map((m, i) => {
    const lead = braces && i === 0 ? '{' : ',';
    if (m.key === undefined) {
      if (i === 0 && braces) throw new Error('a keyless member cannot come first');
    } else if (!/^[\x20-\x7e]*$/.test(m.key) || JSON.stringify(m.key) !== `"${m.key}"`) {
      throw new Error(`key ${JSON.stringify(m.key)} is not plain ASCII`);
    }
    const prefix =
      m.key === undefined ? '' : `out.ascii(${JSON.stringify(`${lead}"${m.key}":`)}); `;
    if ('field' in m) return `${prefix}out.${m.as ?? 'scalar'}(a[${JSON.stringify(m.field)}]);`;
    names.push(`w${i}`);
    values.push(m.write);
    return `${prefix}w${i}(out, a, b);`;
  });
  if (braces) lines.push(members.length === 0 ? 'out.ascii("{}");' : 'out.byte(0x7d);');
  const body = `"use strict";\nreturn function writeObject(out, a, b) {\n${lines.join('\n')}\n};`;
  return new Function(...names, body)(...values) as RowWriter<O, A>;
}
