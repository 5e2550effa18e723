import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { argsHash, canonicalJson, createEngine, describeOpaque } from '../src/index.js';
import { resultHash } from '../src/signature/index.js';

const MiB = 1024 * 1024;

describe('binary values, Blobs and streams', () => {
  it('a large binary value is written by a digest of its bytes, the same bytes the same text', () => {
    const a = Buffer.alloc(4 * MiB, 7);
    const b = Buffer.alloc(4 * MiB, 7);
    const c = Buffer.alloc(4 * MiB, 7);
    c[MiB] = 8;
    expect(canonicalJson(a)).toMatch(/^\{"\[Binary\]":"[0-9a-f]{64}"\}$/);
    expect(argsHash({ file: a })).toBe(argsHash({ file: b }));
    expect(argsHash({ file: a })).not.toBe(argsHash({ file: c }));
    // the bytes, whatever the view
    expect(canonicalJson(new Uint8Array(a))).toBe(canonicalJson(a));
    expect(canonicalJson(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength))).toBe(
      canonicalJson(a),
    );
    expect(resultHash(a)).toBe(resultHash(b));
    expect(resultHash(a)).not.toBe(resultHash(c));
  });

  it('a small binary view is written as JSON writes it; an ArrayBuffer by its bytes', () => {
    expect(canonicalJson(Buffer.from('hi'))).toBe('{"data":[104,105],"type":"Buffer"}');
    expect(canonicalJson(new ArrayBuffer(4))).not.toBe(canonicalJson(new ArrayBuffer(5)));
  });

  it('binary values past 16 MiB are hashed by sampled windows: changes at the edges count', () => {
    const a = Buffer.alloc(40 * MiB);
    const head = Buffer.from(a);
    head[10] = 1;
    const tail = Buffer.from(a);
    tail[tail.length - 10] = 1;
    expect(canonicalJson(head)).not.toBe(canonicalJson(a));
    expect(canonicalJson(tail)).not.toBe(canonicalJson(a));
    expect(canonicalJson(Buffer.alloc(40 * MiB))).toBe(canonicalJson(a));
  });

  it('Blobs and streams are written by identity and never read', () => {
    const stream = Readable.from(['a']);
    const web = new ReadableStream();
    const blob = new Blob(['abc'], { type: 'text/plain' });
    expect(canonicalJson(stream)).toBe(canonicalJson(stream));
    expect(canonicalJson(stream)).not.toBe(canonicalJson(Readable.from(['a'])));
    expect(canonicalJson(web)).toMatch(/^\{"\[Stream\]":"#\d+"\}$/);
    expect(canonicalJson(blob)).toMatch(/^\{"\[Blob\]":"3:text\/plain:#\d+"\}$/);
    expect(stream.readableFlowing).toBe(null);
    expect(web.locked).toBe(false);
    expect(describeOpaque(blob)).toBe('[Blob: 3 bytes, text/plain]');
    expect(describeOpaque(Buffer.alloc(5))).toBe('[Binary: 5 bytes]');
    expect(describeOpaque(web)).toBe('[Stream]');
    expect(describeOpaque({ a: 1 })).toBeUndefined();
  });

  it('a no-progress loop over the same file bytes is seen', () => {
    const engine = createEngine({
      env: {},
      configFile: false,
      tools: { read_file: { kind: 'idempotent' } },
    });
    let last: ReturnType<typeof engine.afterCall> | undefined;
    for (let i = 0; i < 3; i++) {
      const call = { scope: 's', tool: 'read_file', args: { path: '/data.bin' } };
      engine.beforeCall(call);
      last = engine.afterCall({ ...call, ok: true, result: Buffer.alloc(8 * MiB, 1) });
    }
    expect(last?.findings.map((f) => f.axis)).toContain('no_progress');
  });
});

describe('long arrays of primitives', () => {
  it('have the text the item-by-item writer gives', () => {
    const items = Array.from({ length: 1000 }, (_, i) =>
      i % 5 === 0 ? `s${i}"\n` : i % 5 === 1 ? i / 3 : i % 5 === 2 ? null : i % 5 === 3 ? true : -0,
    );
    // the same items, one at a time (each array under the native bound)
    const reference = `[${items.map((x) => canonicalJson([x]).slice(1, -1)).join(',')}]`;
    expect(canonicalJson(items)).toBe(reference);
    expect(canonicalJson([...items, undefined, () => 1])).toBe(
      `${reference.slice(0, -1)},null,null]`,
    );
  });
});
