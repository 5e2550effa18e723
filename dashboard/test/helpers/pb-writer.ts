// A small protobuf encoder for decoder tests: what the OTel SDK cannot send (kvlist values,
// unknown fields of every wire type, fields out of order).

/** A protobuf message being written: fields in the order they are added. */
export class Pb {
  private readonly parts: Buffer[] = [];
  private tag(field: number, wire: number): void {
    this.varint(BigInt(field * 8 + wire));
  }
  varint(v: bigint): this {
    let x = BigInt.asUintN(64, v);
    const bytes: number[] = [];
    do {
      const b = Number(x & 0x7fn);
      x >>= 7n;
      bytes.push(x > 0n ? b | 0x80 : b);
    } while (x > 0n);
    this.parts.push(Buffer.from(bytes));
    return this;
  }
  int(field: number, v: bigint | number): this {
    this.tag(field, 0);
    return this.varint(BigInt(v));
  }
  fixed64(field: number, v: bigint): this {
    this.tag(field, 1);
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(v);
    this.parts.push(b);
    return this;
  }
  double(field: number, v: number): this {
    this.tag(field, 1);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    this.parts.push(b);
    return this;
  }
  fixed32(field: number, v: number): this {
    this.tag(field, 5);
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.parts.push(b);
    return this;
  }
  bytes(field: number, v: Buffer | string | Pb): this {
    const data = v instanceof Pb ? v.done() : Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8');
    this.tag(field, 2);
    this.varint(BigInt(data.length));
    this.parts.push(data);
    return this;
  }
  /** Unknown fields of every wire type, which the decoder must skip. */
  junk(): this {
    return this.int(90, -1n).fixed64(91, 7n).bytes(92, 'ignored').fixed32(93, 5);
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** An AnyValue in ProtoJSON form, and the same value as protobuf. */
export type Any =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { bytesValue: string }
  | { arrayValue: { values: Any[] } }
  | { kvlistValue: { values: { key: string; value: Any }[] } };

/** An AnyValue as protobuf, with unknown fields around its value. */
export function anyPb(v: Any): Pb {
  const m = new Pb().junk();
  if ('stringValue' in v) m.bytes(1, v.stringValue);
  else if ('boolValue' in v) m.int(2, v.boolValue ? 1 : 0);
  else if ('intValue' in v) m.int(3, BigInt(v.intValue));
  else if ('doubleValue' in v) m.double(4, v.doubleValue);
  else if ('arrayValue' in v) {
    const a = new Pb().junk();
    for (const x of v.arrayValue.values) a.bytes(1, anyPb(x));
    m.bytes(5, a);
  } else if ('kvlistValue' in v) {
    const l = new Pb().junk();
    for (const kv of v.kvlistValue.values) l.bytes(1, kvPb(kv.key, kv.value));
    m.bytes(6, l);
  } else m.bytes(7, Buffer.from(v.bytesValue, 'base64'));
  return m;
}

/** A KeyValue as protobuf, with unknown fields between key and value. */
export function kvPb(key: string, value: Any): Pb {
  return new Pb().bytes(1, key).junk().bytes(2, anyPb(value));
}
