import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/server/app.js';
import type { Store } from '../src/store/index.js';
import { JSON_CT, PROTO, useIngestApp } from './helpers/ingest-app.js';
import { sdkSpans, toJson, toProtobuf } from './otlp-helpers.js';

const lg = useIngestApp('bad');
const { post } = lg;

async function expectError(res: Response, status: number, message: RegExp) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { code: number; message: string };
  expect(body.message).toMatch(message);
}

async function stored(): Promise<number> {
  return (await lg.store.counters()).ingestedSpans;
}

function request(span: Record<string, unknown>) {
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] });
}

const okSpan = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  name: 'x',
};

describe('ingest refuses bad input with a reason and stores nothing of it', () => {
  it('truncated protobuf', async () => {
    const body = toProtobuf(await sdkSpans(3));
    const before = await stored();
    for (const cut of [1, 2, 7, 40, Math.floor(body.length / 2), body.length - 1]) {
      const res = await post(body.subarray(0, cut), PROTO);
      expect(res.status, `cut at ${cut}`).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/x-protobuf');
      expect(Buffer.from(await res.arrayBuffer()).toString('utf8')).toMatch(
        /invalid protobuf at byte \d+/,
      );
    }
    expect(await stored()).toBe(before);
  });

  it('protobuf with a wrong wire type or a bad length', async () => {
    const wrongWire = Buffer.from([0x08, 0x01]); // resource_spans as a varint
    const res = await post(wrongWire, PROTO);
    expect(res.status).toBe(400);
    expect(Buffer.from(await res.arrayBuffer()).toString()).toContain(
      'resource_spans has wire type 0',
    );
    const longLen = Buffer.from([0x0a, 0x7f, 0x00]);
    expect((await post(longLen, PROTO)).status).toBe(400);
    const group = Buffer.from([0x0b]); // start-group wire type
    expect((await post(group, PROTO)).status).toBe(400);
  });

  it('text that is not UTF-8, in a JSON body or a protobuf string field', async () => {
    const before = await stored();
    const [head, tail] = request({ ...okSpan, name: '@' }).split('@') as [string, string];
    const json = Buffer.concat([
      Buffer.from(head),
      Buffer.from([0x61, 0xff, 0x62]),
      Buffer.from(tail),
    ]);
    await expectError(await post(json, JSON_CT), 400, /not valid UTF-8/);
    const proto = toProtobuf(await sdkSpans(2));
    const at = proto.indexOf(Buffer.from('execute_tool'));
    expect(at).toBeGreaterThan(0);
    for (const byte of [0xff, 0xc3]) {
      const bad = Buffer.from(proto);
      bad[at + 3] = byte; // 0xff is never UTF-8; 0xc3 wants a continuation byte, gets 'u'
      const res = await post(bad, PROTO);
      expect(res.status).toBe(400);
      expect(Buffer.from(await res.arrayBuffer()).toString('utf8')).toMatch(/not valid UTF-8/);
    }
    expect(await stored()).toBe(before);
  });

  it('JSON of the wrong types, with the path of the offending field', async () => {
    await expectError(
      await post('{"resourceSpans": {}}', JSON_CT),
      400,
      /resourceSpans: expected an array/,
    );
    await expectError(
      await post(request({ ...okSpan, name: 5 }), JSON_CT),
      400,
      /spans\[0\]\.name: expected a string/,
    );
    await expectError(
      await post(
        request({ ...okSpan, attributes: [{ key: 'n', value: { intValue: 'ten' } }] }),
        JSON_CT,
      ),
      400,
      /attributes\[0\]\.value\.intValue: expected an integer/,
    );
    await expectError(
      await post(request({ ...okSpan, startTimeUnixNano: -1 }), JSON_CT),
      400,
      /startTimeUnixNano/,
    );
    await expectError(
      await post(request({ ...okSpan, traceId: 'zz' }), JSON_CT),
      400,
      /traceId: expected a hex/,
    );
    await expectError(await post('{"resourceSpans": [', JSON_CT), 400, /invalid JSON/);
    await expectError(await post('[]', JSON_CT), 400, /\$: expected an object/);
  });

  it('ignores unknown JSON fields and accepts int64 as strings or numbers', async () => {
    const body = request({
      ...okSpan,
      unknownField: { deep: 1 },
      startTimeUnixNano: 1_700_000_000_000_000_000,
      endTimeUnixNano: '1700000000005000000',
    });
    const res = await post(body, JSON_CT);
    expect(res.status).toBe(200);
    const trace = await lg.store.trace(okSpan.traceId);
    expect(trace[0]).toMatchObject({ durationMs: 5, start: 1_700_000_000_000 });
  });

  // One 60 MiB body took the server to 2 GiB (decoding and staging cost ~25x a body's size):
  // the default limit is the Collector's OTLP/HTTP receiver's, 20 MiB.
  it('refuses a body over 20 MiB by default, plain or inflated', async () => {
    const over = Buffer.alloc(20 * 1024 * 1024 + 1, 32);
    await expectError(await post(over, JSON_CT), 413, /exceeds 20971520/);
    const gz = gzipSync(over, { level: 1 });
    await expectError(
      await post(gz, { ...JSON_CT, 'content-encoding': 'gzip' }),
      413,
      /after decompression/,
    );
  });

  it('gzip bomb: stopped at the limit while inflating', async () => {
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024), { level: 1 });
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    await expectError(
      await post(bomb, { ...JSON_CT, 'content-encoding': 'gzip' }),
      413,
      /after decompression/,
    );
  });

  it('corrupt gzip and unknown encodings', async () => {
    await expectError(
      await post(Buffer.from('not gzip at all'), { ...JSON_CT, 'content-encoding': 'gzip' }),
      400,
      /invalid gzip/,
    );
    await expectError(
      await post('{}', { ...JSON_CT, 'content-encoding': 'br' }),
      415,
      /Content-Encoding/,
    );
  });

  it('a span with 10 000 attributes is stored whole', async () => {
    const attributes = Array.from({ length: 10_000 }, (_, i) => ({
      key: `attr.${i}`,
      value: { stringValue: `v${i}` },
    }));
    const traceId = `${'f'.repeat(31)}e`;
    const res = await post(request({ ...okSpan, traceId, attributes }), JSON_CT);
    expect(res.status).toBe(200);
    const [span] = await lg.store.trace(traceId);
    expect(Object.keys(span!.attributes)).toHaveLength(10_000);
    expect(span!.attributes['attr.9999']).toBe('v9999');
  });

  it('wrong content type', async () => {
    const res = await post('hello', { 'content-type': 'text/plain' });
    await expectError(res, 415, /unsupported Content-Type "text\/plain"/);
    expect((await post('hello', {})).status).toBe(415);
  });

  it('oversize bodies: declared and actual', async () => {
    const small = createApp({ store: lg.store, maxBodyBytes: 1024 });
    const big = toJson(await sdkSpans(20));
    expect(big.length).toBeGreaterThan(1024);
    await expectError(await post(big, JSON_CT, small), 413, /exceeds 1024 bytes/);
    await expectError(
      await post(gzipSync(big), { ...JSON_CT, 'content-encoding': 'gzip' }, small),
      413,
      /after decompression/,
    );
    const declared = await lg.app.request('/v1/traces', {
      method: 'POST',
      body: '{}',
      headers: { ...JSON_CT, 'content-length': String(65 * 1024 * 1024) },
    });
    expect(declared.status).toBe(413);
  });

  it('over capacity: 429 with Retry-After while the queue is full', async () => {
    // the one place is held by a request whose body has arrived and whose insert is not done
    let release: () => void = () => undefined;
    const inserting = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowStore: Store = Object.create(lg.store);
    slowStore.insert = async (spans, rejected) => {
      await inserting;
      return lg.store.insert(spans, rejected);
    };
    const limited = createApp({ store: slowStore, maxInFlight: 1 });
    const first = post(request(okSpan), JSON_CT, limited);
    await new Promise((r) => setTimeout(r, 50));
    const second = await post(request(okSpan), JSON_CT, limited);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    release();
    expect((await first).status).toBe(200);
    expect((await post(request(okSpan), JSON_CT, limited)).status).toBe(200);
  });

  it('a body still arriving holds no place in the queue', async () => {
    const limited = createApp({ store: lg.store, maxInFlight: 1 });
    let release: () => void = () => undefined;
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(request(okSpan)));
        release = () => controller.close();
      },
    });
    const first = limited.request('/v1/traces', {
      method: 'POST',
      body: stalled,
      headers: JSON_CT,
      duplex: 'half',
    } as RequestInit);
    await new Promise((r) => setTimeout(r, 50));
    expect((await post(request(okSpan), JSON_CT, limited)).status).toBe(200);
    release();
    expect((await first).status).toBe(200);
  });
});

describe('bytes in flight', () => {
  /** A request whose body stays open after its first chunk until `release()`. */
  function stalledPost(app: ReturnType<typeof createApp>, first: string) {
    let release: () => void = () => undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(first));
        release = () => controller.close();
      },
    });
    const response = app.request('/v1/traces', {
      method: 'POST',
      body,
      headers: JSON_CT,
      duplex: 'half',
    } as RequestInit);
    return { response, release: () => release() };
  }

  it('refuses with 429 and Retry-After while other requests hold the body budget', async () => {
    const body = request(okSpan);
    const limited = createApp({ store: lg.store, maxInFlightBytes: Math.ceil(body.length * 1.5) });
    const held = stalledPost(limited, body);
    await new Promise((r) => setTimeout(r, 50));
    const refused = await post(request(okSpan), JSON_CT, limited);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /MiB of request bodies in flight/,
    );
    held.release();
    expect((await held.response).status).toBe(200);
    // the budget is returned once a request is done
    expect((await post(request(okSpan), JSON_CT, limited)).status).toBe(200);
  });

  it('admits a body larger than the budget when no other request holds any', async () => {
    const body = request(okSpan);
    const limited = createApp({ store: lg.store, maxInFlightBytes: 16 });
    expect((await post(body, JSON_CT, limited)).status).toBe(200);
    expect((await post(body, JSON_CT, limited)).status).toBe(200);
  });
});

describe('bearer token', () => {
  it('guards ingest, API and metrics but not /healthz', async () => {
    const guarded = createApp({ store: lg.store, token: 's3cret' });
    const body = request(okSpan);
    const none = await post(body, JSON_CT, guarded);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    for (const wrong of ['nope', 's3creT', 's3cret2', 's3cre', 'S3CRET'])
      expect(
        (await post(body, { ...JSON_CT, authorization: `Bearer ${wrong}` }, guarded)).status,
      ).toBe(401);
    expect((await post(body, { ...JSON_CT, authorization: 'Bearer s3cret' }, guarded)).status).toBe(
      200,
    );
    expect((await guarded.request('/api/summary')).status).toBe(401);
    expect(
      (await guarded.request('/api/summary', { headers: { authorization: 'Bearer s3cret' } }))
        .status,
    ).toBe(200);
    expect((await guarded.request('/metrics')).status).toBe(401);
    expect((await guarded.request('/healthz')).status).toBe(200);
  });
});
