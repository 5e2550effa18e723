import { afterEach, describe, expect, it } from 'vitest';
import { captureText, captureValue, isSensitiveKey, resolveCapture } from '../src/capture.js';
import { createGuard } from '../src/index.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry | undefined;
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
});

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };
const on = resolveCapture({ enabled: true }, {});

describe('redaction of the shapes secrets come in', () => {
  it('a JSON-string argument cut short', () => {
    expect(captureValue('{"password":"X","path":"/etc', on)).toBe(
      '{"password":"[REDACTED]","path":"/etc',
    );
    expect(captureValue('{"q":1,"api_key":"abcdef', on)).toBe('{"q":1,"api_key":"[REDACTED]"');
  });

  it('header pairs and HAR-style name/value entries', () => {
    expect(
      JSON.parse(
        captureValue(
          {
            headers: [
              ['Authorization', 'Bearer X'],
              ['Accept', 'json'],
            ],
          },
          on,
        ),
      ),
    ).toEqual({
      headers: [
        ['Authorization', '[REDACTED]'],
        ['Accept', 'json'],
      ],
    });
    expect(
      JSON.parse(
        captureValue(
          {
            request: {
              headers: [
                { name: 'Authorization', value: 'Bearer X' },
                { name: 'accept', value: 'json' },
              ],
              queryString: [{ name: 'access_token', value: 't' }],
              cookies: [{ key: 'session', value: 's' }],
            },
          },
          on,
        ),
      ),
    ).toEqual({
      request: {
        headers: [
          { name: 'Authorization', value: '[REDACTED]' },
          { name: 'accept', value: 'json' },
        ],
        queryString: [{ name: 'access_token', value: '[REDACTED]' }],
        cookies: '[REDACTED]',
      },
    });
  });

  it('credentials in URLs, command lines and header text', () => {
    expect(
      JSON.parse(
        captureValue(
          {
            url: 'https://api.example.com/v1/x?q=1&access_token=SECRET&page=2',
            db: 'postgres://ada:hunter2@db.internal:5432/app',
            cmd: 'mysql --password=hunter2 -u root && export API_KEY=abc',
            raw: 'GET / HTTP/1.1\nAuthorization: Basic dXNlcjpwYXNz\nHost: x',
            note: 'curl -H "X: y" https://h/?token=abc',
          },
          on,
        ),
      ),
    ).toEqual({
      url: 'https://api.example.com/v1/x?q=1&access_token=[REDACTED]&page=2',
      db: 'postgres://ada:[REDACTED]@db.internal:5432/app',
      cmd: 'mysql --password=[REDACTED] -u root && export API_KEY=[REDACTED]',
      raw: 'GET / HTTP/1.1\nAuthorization: [REDACTED]\nHost: x',
      note: 'curl -H "X: y" https://h/?token=[REDACTED]',
    });
  });

  it('keys such as authHeader, Authentication, pwd and pass, not author or max_tokens', () => {
    for (const key of ['authHeader', 'Authentication', 'pwd', 'pass', 'refreshToken', 'x-api-key'])
      expect(isSensitiveKey(key), key).toBe(true);
    for (const key of [
      'author',
      'max_tokens',
      'tokenizer',
      'compass',
      'bypass',
      'passport',
      'path',
    ])
      expect(isSensitiveKey(key), key).toBe(false);
    expect(
      JSON.parse(captureValue({ authHeader: 'a', Authentication: 'b', pwd: 'c', pass: 'd' }, on)),
    ).toEqual({
      authHeader: '[REDACTED]',
      Authentication: '[REDACTED]',
      pwd: '[REDACTED]',
      pass: '[REDACTED]',
    });
  });

  it('double-encoded JSON, at the top and in a member', () => {
    const twice = JSON.stringify(JSON.stringify({ password: 'X', q: 1 }));
    expect(JSON.parse(JSON.parse(captureValue(twice, on)))).toEqual({
      password: '[REDACTED]',
      q: 1,
    });
    const member = { body: JSON.stringify(JSON.stringify({ api_key: 'K', q: 2 })) };
    const body = JSON.parse(captureValue(member, on)).body as string;
    expect(JSON.parse(JSON.parse(body))).toEqual({ api_key: '[REDACTED]', q: 2 });
  });

  it('goes through the hook: a custom redact sees the key of each secret found in text', () => {
    const keys: string[] = [];
    const capture = resolveCapture(
      {
        enabled: true,
        redact: (key, value) => {
          keys.push(key);
          return key === 'session' ? '***' : value;
        },
      },
      {},
    );
    expect(captureText('https://h/x?session=abc&q=1', capture)).toBe('https://h/x?session=***&q=1');
    expect(keys).toContain('session');
  });
});

describe('exception messages are content', () => {
  async function failingCall(capture: boolean) {
    telemetry = createTelemetry();
    const guard = createGuard({ tracerProvider: telemetry.tracerProvider, engine: quiet, capture });
    const login = guard.wrap('login', async () => {
      throw new Error('login failed for postgres://ada:hunter2@db with password=hunter2');
    });
    await expect(login()).rejects.toThrow('hunter2');
    const event = telemetry.spans()[0]?.events.find((e) => e.name === 'exception');
    return event?.attributes ?? {};
  }

  it('with capture off, the event names the type and the frames, not the message', async () => {
    const attributes = await failingCall(false);
    expect(attributes['exception.type']).toBe('Error');
    expect(attributes).not.toHaveProperty('exception.message');
    const stack = String(attributes['exception.stacktrace']);
    expect(stack).toMatch(/^ {4}at /);
    expect(JSON.stringify(attributes)).not.toContain('hunter2');
  });

  it('with capture on, the message and stack are recorded redacted', async () => {
    const attributes = await failingCall(true);
    expect(attributes['exception.message']).toBe(
      'login failed for postgres://ada:[REDACTED]@db with password=[REDACTED]',
    );
    expect(String(attributes['exception.stacktrace'])).toContain('login failed for postgres://ada');
    expect(JSON.stringify(attributes)).not.toContain('hunter2');
  });
});
