import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureValue, defaultRedact, resolveCapture } from '../src/capture.js';
import { createGuard } from '../src/index.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;
afterEach(async () => {
  await telemetry?.shutdown();
});

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };

describe('capture', () => {
  it('is off unless the GenAI content env var or the option turns it on', () => {
    expect(resolveCapture(undefined, {}).enabled).toBe(false);
    expect(
      resolveCapture(undefined, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' })
        .enabled,
    ).toBe(true);
    expect(
      resolveCapture(false, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }).enabled,
    ).toBe(false);
    expect(resolveCapture({ enabled: true, maxLength: -3 }, {}).maxLength).toBe(4096);
  });

  it('options without `enabled` keep its documented default, the env var', () => {
    const redact = (_key: string, value: unknown) => value;
    const on = { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' };
    const options = { redact, maxLength: 100 };
    expect(resolveCapture(options, on)).toEqual({ enabled: true, redact, maxLength: 100 });
    expect(resolveCapture(options, {}).enabled).toBe(false);
  });

  it('a guard created without a capture option follows the env var of the process', async () => {
    telemetry = createTelemetry();
    const call = async (value: string | undefined) => {
      vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', value);
      try {
        const guard = createGuard({ tracerProvider: telemetry.tracerProvider, engine: quiet });
        await guard.traceToolCall({ tool: 'grep', args: { q: 'x' } }, () => 'hit');
      } finally {
        vi.unstubAllEnvs();
      }
      return telemetry.spans().at(-1)?.attributes;
    };
    expect(await call('true')).toMatchObject({
      'gen_ai.tool.call.arguments': '{"q":"x"}',
      'gen_ai.tool.call.result': 'hit',
    });
    for (const off of [undefined, 'false']) {
      expect(await call(off)).not.toHaveProperty('gen_ai.tool.call.arguments');
    }
  });

  it('records redacted, truncated arguments and results only when enabled', async () => {
    telemetry = createTelemetry();
    const providers = {
      tracerProvider: telemetry.tracerProvider,
      meterProvider: telemetry.meterProvider,
    };
    const off = createGuard({ ...providers, engine: quiet, capture: false });
    await off.traceToolCall(
      { tool: 'login', args: { user: 'ada', password: 'hunter2' } },
      () => 'ok',
    );
    const on = createGuard({ ...providers, engine: quiet, capture: true });
    await on.traceToolCall(
      { tool: 'login', args: '{"user":"ada","config":{"api_key":"sk-123"},"password":"hunter2"}' },
      () => ({ session: 's1', token: 'abc' }),
    );
    const custom = createGuard({
      ...providers,
      engine: quiet,
      capture: {
        enabled: true,
        maxLength: 20,
        redact: (key, value) => (key === 'user' ? '***' : value),
      },
    });
    await custom.traceToolCall({ tool: 'login', args: { user: 'ada', note: 'x'.repeat(50) } }, () =>
      'y'.repeat(30),
    );

    const [plain, redacted, truncated] = telemetry.spans();
    expect(plain?.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(plain?.attributes['gen_ai.tool.call.result']).toBeUndefined();
    expect(redacted?.attributes['gen_ai.tool.call.arguments']).toBe(
      '{"user":"ada","config":{"api_key":"[REDACTED]"},"password":"[REDACTED]"}',
    );
    const result = String(redacted?.attributes['gen_ai.tool.call.result']);
    expect(result).toContain('"session":"s1"');
    expect(result).toContain('"token":"[REDACTED]"');
    expect(result).not.toContain('abc');
    const args = String(truncated?.attributes['gen_ai.tool.call.arguments']);
    expect(args).toHaveLength(20);
    expect(args.startsWith('{"user":"***"')).toBe(true);
    expect(args.endsWith('…')).toBe(true);
    expect(truncated?.attributes['gen_ai.tool.call.result']).toBe(`${'y'.repeat(19)}…`);
  });

  it('redacts every documented sensitive key, in any case, at any depth and inside arrays', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      tracerProvider: telemetry.tracerProvider,
      engine: quiet,
      capture: true,
    });
    const args = {
      Authorization: 'Bearer abc',
      headers: { Cookie: 'sid=1', accept: 'json' },
      list: [{ client_secret: 's' }, { passwd: 'p' }],
      access_token: 't',
      apiKey: 'k1',
      'API-KEY': 'k2',
      Password: 'p2',
      privateKey: '-----BEGIN',
      ssh_private_key: 'k3',
      credentials: { user: 'u' },
      passphrase: 'pp',
      AWS_ACCESS_KEY_ID: 'AKIA',
      auth: 'user:pw',
      'X-Auth': 'h',
      author: 'ada',
      user: 'ada',
    };
    await guard.traceToolCall({ tool: 'call_api', args }, () => 'ok');
    expect(
      JSON.parse(String(telemetry.spans()[0]?.attributes['gen_ai.tool.call.arguments'])),
    ).toEqual({
      Authorization: '[REDACTED]',
      headers: { Cookie: '[REDACTED]', accept: 'json' },
      list: [{ client_secret: '[REDACTED]' }, { passwd: '[REDACTED]' }],
      access_token: '[REDACTED]',
      apiKey: '[REDACTED]',
      'API-KEY': '[REDACTED]',
      Password: '[REDACTED]',
      privateKey: '[REDACTED]',
      ssh_private_key: '[REDACTED]',
      credentials: '[REDACTED]',
      passphrase: '[REDACTED]',
      AWS_ACCESS_KEY_ID: '[REDACTED]',
      auth: '[REDACTED]',
      'X-Auth': '[REDACTED]',
      author: 'ada',
      user: 'ada',
    });
  });

  it('captures what the tool returned, not the notice appended for the model', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      tracerProvider: telemetry.tracerProvider,
      engine: quiet,
      capture: true,
    });
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push(await guard.traceToolCall({ tool: 'grep', args: { q: 'x' } }, () => `hit ${i}`));
    }
    expect(String(seen[2])).toContain('[loopguard]');
    const third = telemetry.spans()[2];
    expect(third?.attributes['loopguard.action']).toBe('nudge');
    expect(third?.attributes['gen_ai.tool.call.result']).toBe('hit 2');
  });

  it('captures no result for a blocked call, and the tool result a halt replaced', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      tracerProvider: telemetry.tracerProvider,
      engine: { ...quiet, guardrails: { hardStop: true, hardStopAfter: { repetition: 2 } } },
      capture: true,
      onHalt: 'return',
    });
    let n = 0;
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push(
        await guard.traceToolCall({ tool: 'create_ticket', args: { t: 1 } }, () => `T-${++n}`),
      );
    }
    expect(n).toBe(2);
    const [, halted, blocked] = telemetry.spans();
    expect(String(seen[1])).toMatch(/^\[loopguard\]/);
    expect(halted?.attributes['gen_ai.tool.call.result']).toBe('T-2');
    expect(blocked?.attributes['loopguard.outcome']).toBe('blocked');
    expect(blocked?.attributes['gen_ai.tool.call.arguments']).toBe('{"t":1}');
    expect(blocked?.attributes).not.toHaveProperty('gen_ai.tool.call.result');
  });
});

describe('captureValue', () => {
  const capture = (maxLength = 4096) => resolveCapture({ enabled: true, maxLength }, {});
  /** What JSON.stringify writes, cut as the capture cuts it. */
  const cut = (value: unknown, maxLength = 4096) => {
    const text = JSON.stringify(value);
    return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
  };

  it('is the redacted JSON text, cut, whatever the value and the length', () => {
    const container = fc.oneof(
      fc.array(fc.jsonValue()),
      fc.dictionary(fc.string(), fc.jsonValue()),
    );
    fc.assert(
      fc.property(container, fc.integer({ min: 1, max: 200 }), (value, maxLength) => {
        // a replacer sees array indices as keys too; no index looks sensitive
        const text = JSON.stringify(value, (k, v) => (k === '' ? v : defaultRedact(k, v)));
        const expected = text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
        expect(captureValue(value, capture(maxLength))).toBe(expected);
      }),
    );
  });

  it('writes values with toJSON (dates, buffers) as JSON.stringify does', () => {
    const args = { when: new Date(0), data: Buffer.from('hi'), nested: [new Date(1000)] };
    expect(captureValue(args, capture())).toBe(cut(args));
    expect(captureValue(args, capture())).toContain('"when":"1970-01-01T00:00:00.000Z"');
  });

  it('redacts inside JSON text held by a member, and leaves JSON text without secrets as it was', () => {
    const args = {
      body: '{"user":"ada", "password":"x"}',
      nested: JSON.stringify({ request: JSON.stringify({ api_key: 'k', q: 1 }) }),
      list: ['[{"jwt":"eyJ"}]', ' {"Bearer":"b"} '],
      plain: '{ "q": 1 }',
      text: '{not json',
    };
    expect(JSON.parse(captureValue(args, capture()))).toEqual({
      body: '{"user":"ada","password":"[REDACTED]"}',
      nested: JSON.stringify({ request: JSON.stringify({ api_key: '[REDACTED]', q: 1 }) }),
      list: ['[{"jwt":"[REDACTED]"}]', '{"Bearer":"[REDACTED]"}'],
      plain: '{ "q": 1 }',
      text: '{not json',
    });
  });

  it('keeps a __proto__ key of parsed JSON arguments, redacted inside', () => {
    expect(captureValue('{"__proto__":{"password":"x"},"q":1}', capture())).toBe(
      '{"__proto__":{"password":"[REDACTED]"},"q":1}',
    );
  });

  // The whole value was copied before the text was cut: a 4 MB Buffer argument held the agent
  // for seconds on each call.
  it('copies no more of a large value than the cut text shows', () => {
    let reads = 0;
    const wide: Record<string, number> = {};
    for (let i = 0; i < 10_000; i++) {
      Object.defineProperty(wide, `k${i}`, {
        enumerable: true,
        get: () => {
          reads++;
          return i;
        },
      });
    }
    const text = captureValue({ wide }, capture(100));
    expect(reads).toBeLessThan(200);
    const plain = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    expect(text).toBe(cut({ wide: plain }, 100));
    const bytes = new Uint8Array(200_000).fill(7);
    expect(captureValue({ bytes }, capture(100))).toBe(cut({ bytes }, 100));
    const big = Buffer.alloc(1_000_000, 65);
    expect(captureValue(big, capture())).toBe(cut(big));
  });
});
