// Values whose JSON text would cost more than they are worth, or that cannot be read without
// consuming them: binary data is written by a digest of its bytes, Blobs and streams by identity.
import { createHash } from 'node:crypto';

/** Binary values up to this many bytes are written as JSON writes them (an object of indices). */
export const BINARY_INLINE_BYTES = 4096;
/** Binary values up to this many bytes are hashed whole; larger ones by sampled windows. */
export const BINARY_FULL_HASH_BYTES = 16 * 1024 * 1024;
const EDGE_BYTES = 4 * 1024 * 1024;
const WINDOWS = 8;
const WINDOW_BYTES = 1024 * 1024;

/** The bytes of an ArrayBuffer, SharedArrayBuffer or view (Buffer, typed array, DataView). */
function bytesOf(value: object): Uint8Array | undefined {
  if (ArrayBuffer.isView(value))
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)
    return new Uint8Array(value);
  return undefined;
}

/**
 * SHA-256 (hex) of the byte length and the bytes: all of them up to BINARY_FULL_HASH_BYTES, else
 * the first and last 4 MiB and 8 windows of 1 MiB spread between them, so the cost is bounded.
 */
export function binaryDigest(bytes: Uint8Array): string {
  const h = createHash('sha256').update(`${bytes.byteLength}:`);
  if (bytes.byteLength <= BINARY_FULL_HASH_BYTES) return h.update(bytes).digest('hex');
  h.update(bytes.subarray(0, EDGE_BYTES));
  const middle = bytes.byteLength - 2 * EDGE_BYTES - WINDOW_BYTES;
  for (let i = 1; i <= WINDOWS; i++) {
    const at = EDGE_BYTES + Math.floor((middle * i) / (WINDOWS + 1));
    h.update(bytes.subarray(at, at + WINDOW_BYTES));
  }
  return h.update(bytes.subarray(bytes.byteLength - EDGE_BYTES)).digest('hex');
}

/** Identity numbers of opaque objects, owned by the writer that numbers them. */
export class Identities {
  private readonly ids = new WeakMap<object, number>();
  private next = 1;

  /** The number of `value`: the same object gets the same number for as long as it lives. */
  of(value: object): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(value, id);
    }
    return id;
  }
}

function isStream(value: object): boolean {
  const v = value as { getReader?: unknown; pipe?: unknown; on?: unknown };
  return (
    typeof v.getReader === 'function' ||
    (typeof v.pipe === 'function' && typeof v.on === 'function') ||
    Symbol.asyncIterator in value
  );
}

type Opaque =
  | { kind: 'binary'; bytes: Uint8Array }
  | { kind: 'blob'; blob: Blob }
  | { kind: 'stream' }
  | undefined;

/** What kind of opaque value `value` is, if any. */
function classify(value: object): Opaque {
  const bytes = bytesOf(value);
  if (bytes !== undefined) return { kind: 'binary', bytes };
  if (typeof Blob !== 'undefined' && value instanceof Blob) return { kind: 'blob', blob: value };
  if (isStream(value)) return { kind: 'stream' };
  return undefined;
}

/**
 * The JSON text standing for a binary value over BINARY_INLINE_BYTES (any ArrayBuffer: JSON
 * writes each as `{}`), a Blob or a stream; undefined for any other value, which is written as
 * JSON writes it.
 */
export function opaqueText(value: object, identities: Identities): string | undefined {
  const opaque = classify(value);
  if (opaque === undefined) return undefined;
  if (opaque.kind === 'binary') {
    if (ArrayBuffer.isView(value) && opaque.bytes.byteLength <= BINARY_INLINE_BYTES)
      return undefined;
    return `{"[Binary]":"${binaryDigest(opaque.bytes)}"}`;
  }
  if (opaque.kind === 'blob') {
    const { size, type } = opaque.blob;
    return `{"[Blob]":${JSON.stringify(`${size}:${type}:#${identities.of(value)}`)}}`;
  }
  return `{"[Stream]":"#${identities.of(value)}"}`;
}

/**
 * A short description of a binary value, Blob or stream (`[Binary: 4194304 bytes]`,
 * `[Blob: 12 bytes, text/plain]`, `[Stream]`), for text that shows values without reading
 * them whole; undefined for any other value.
 */
export function describeOpaque(value: object): string | undefined {
  const opaque = classify(value);
  if (opaque === undefined) return undefined;
  if (opaque.kind === 'binary') return `[Binary: ${opaque.bytes.byteLength} bytes]`;
  if (opaque.kind === 'blob')
    return `[Blob: ${opaque.blob.size} bytes${opaque.blob.type ? `, ${opaque.blob.type}` : ''}]`;
  return '[Stream]';
}
