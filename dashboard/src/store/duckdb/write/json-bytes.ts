// A staging file built as UTF-8 bytes, byte for byte what JSON.stringify of the same values
// followed by a UTF-8 encoder writes: the ingest path stages every span this way, so building a
// string per line, joining the lines and encoding the text again cost more than the bytes.

/** Bytes kept between files; a larger buffer (a huge batch) is let go after its file. */
const KEEP_BYTES = 64 << 20;

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

  /** A map of strings as a JSON object, in JSON.stringify's key order. */
  stringMap(map: Record<string, string>): void {
    this.byte(0x7b);
    let first = true;
    for (const key of Object.keys(map)) {
      if (!first) this.byte(0x2c);
      first = false;
      this.string(key);
      this.byte(0x3a);
      this.string(map[key]!);
    }
    this.byte(0x7d);
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

/** Writes one row of a shape as a JSON object, as JSON.stringify writes such a row. */
export type RowWriter<T> = (out: JsonBytes, row: T) => void;

/**
 * A writer of flat rows (strings, numbers, booleans) with the given keys, which must be ASCII
 * and are written in this order: the same bytes as JSON.stringify of a row whose own keys are
 * exactly these, in this order, none of them undefined.
 */
export function rowWriter<T extends object>(keys: readonly (keyof T & string)[]): RowWriter<T> {
  const prefixes = keys.map((key, i) => `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`);
  return (out, row) => {
    const record = row as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++) {
      out.ascii(prefixes[i]!);
      out.scalar(record[keys[i]!]);
    }
    out.byte(keys.length === 0 ? 0x7b : 0x7d);
    if (keys.length === 0) out.byte(0x7d);
  };
}
