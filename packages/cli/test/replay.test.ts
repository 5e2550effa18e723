import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { signatureOf } from '@loopguard/engine';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { runReplay } from '../src/replay-command.js';
import type { ReplayRecord } from '../src/types.js';

// The engine answers every call it is given (deep, cyclic or unreadable arguments included), so a
// call the replay cannot take is simulated: arguments {"explode": true} make the engine throw.
vi.mock('@loopguard/engine', async (importOriginal) => {
  const real = await importOriginal<typeof import('@loopguard/engine')>();
  const explodes = (call: { args?: unknown }) =>
    typeof call.args === 'object' && call.args !== null && 'explode' in call.args;
  return {
    ...real,
    createEngine: (options: Parameters<typeof real.createEngine>[0]) => {
      const engine = real.createEngine(options);
      const beforeCall: typeof engine.beforeCall = (call) => {
        if (explodes(call)) throw new Error('simulated engine failure');
        return engine.beforeCall(call);
      };
      return { ...engine, beforeCall };
    },
  };
});

const SAMPLE = fileURLToPath(new URL('../../../examples/sessions/sample.jsonl', import.meta.url));
const HARD_STOP = fileURLToPath(
  new URL('../../../examples/sessions/hard-stop.json', import.meta.url),
);

function collect(stream: PassThrough): () => string {
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString()));
  return () => chunks.join('');
}

async function replay(
  file: string,
  extra: { json?: boolean; config?: string; all?: boolean; otlp?: boolean } = {},
) {
  const out = new PassThrough();
  const err = new PassThrough();
  const stdout = collect(out);
  const stderr = collect(err);
  const code = await runReplay({
    file,
    json: extra.json ?? true,
    otlp: extra.otlp ?? false,
    all: extra.all ?? false,
    config: extra.config,
    out,
    err,
  });
  return { code, stdout: stdout(), stderr: stderr() };
}

function records(stdout: string): ReplayRecord[] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ReplayRecord);
}

function file(lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-replay-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'session.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('loopguard replay --json', () => {
  it('prints one line per call with the contract fields', async () => {
    const { code, stdout } = await replay(SAMPLE);
    expect(code).toBe(0);
    const rows = records(stdout);
    expect(rows).toHaveLength(54); // 55 lines, one of them a reset
    const grep = rows.filter((r) => r.tool === 'grep' && r.scope === 'run-1');
    expect(grep.slice(0, 9).map((r) => r.streak)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // The 3rd identical grep: a level-1 nudge; the same result again also warns (no progress).
    expect(grep[2]).toMatchObject({ action: 'warn', level: 1, before: 'allow', halt: false });
    expect(grep[2]!.axes).toEqual(['no_progress', 'streak']);
    expect(Object.keys(grep[0]!).sort()).toEqual(
      [
        'action',
        'axes',
        'before',
        'count',
        'halt',
        'i',
        'scope',
        'signature',
        'streak',
        'tool',
      ].sort(),
    );
    expect(rows.map((r) => r.i)).toEqual(rows.map((_, i) => i + 1));
    // After the reset, run-1 starts over.
    expect(rows.at(-1)).toMatchObject({ scope: 'run-1', tool: 'grep', streak: 1, count: 1 });
    // Without hard stop nothing is blocked or halted.
    expect(rows.some((r) => r.before === 'block' || r.halt)).toBe(false);
  });

  it('with hard stop, the blocking call already says halt, and the next identical call is blocked before it runs', async () => {
    const { stdout } = await replay(SAMPLE, { config: HARD_STOP });
    const nav = records(stdout).filter((r) => r.scope === 'run-2');
    expect(nav[7]).toMatchObject({ before: 'allow', action: 'block', halt: true });
    expect(nav[7]!.axes).toContain('repetition');
    expect(nav[6]!.halt).toBe(false);
    expect(nav[8]).toMatchObject({ before: 'block', action: 'block', halt: true, streak: 9 });
    const cycle = records(stdout).filter((r) => r.scope === 'run-3');
    expect(cycle.map((r) => r.action)).toContain('halt');
  });

  it('counts a call that never ran as an attempt only: no outcome, no failure, no repetition', async () => {
    const neverRan = JSON.stringify({
      scope: 'r',
      tool: 'bash',
      args: { cmd: 'make' },
      ran: false,
    });
    const failed = JSON.stringify({ scope: 'r', tool: 'bash', args: { cmd: 'make' }, ok: false });
    const { stdout } = await replay(
      file([neverRan, neverRan, neverRan, neverRan, neverRan, failed]),
    );
    const out = records(stdout);
    expect(out.slice(0, 5).map((r) => [r.ran, r.before, r.action, r.streak, r.axes])).toEqual(
      [1, 2, 3, 4, 5].map((streak) => [false, 'allow', 'allow', streak, []]),
    );
    // One failure so far, not six: the exact-failure warning needs two.
    expect(out[5]).toMatchObject({ action: 'allow', streak: 6, axes: [], count: 6 });
    expect(out[5]!.ran).toBeUndefined();
  });

  it('leaves no trace of a call that never ran in the pairing of later calls (string or no args)', async () => {
    for (const args of ['"{\\"cmd\\":\\"npm test\\"}"', undefined]) {
      const line = (extra: string) =>
        `{"tool":"run_tests"${args === undefined ? '' : `,"args":${args}`}${extra}}`;
      const { stdout } = await replay(file([line(',"ran":false'), line(''), line(''), line('')]));
      const out = records(stdout);
      expect(out.map((r) => r.streak)).toEqual([1, 2, 3, 4]);
      expect(out.map((r) => r.action)).toEqual(['allow', 'allow', 'nudge', 'allow']);
    }
  });

  it('reports bad lines by number and replays every other line', async () => {
    const path = file([
      '{"tool":"grep","args":{"q":1}}',
      '{"tool":',
      '{"tool":"grep","args":{"q":1}}',
      '[1,2]',
      '{"reset": 5}',
      '{"tool":"grep","args":{"q":1}}',
    ]);
    const { code, stdout, stderr } = await replay(path);
    expect(code).toBe(2);
    expect(records(stdout).map((r) => r.streak)).toEqual([1, 2, 3]);
    expect(stderr).toContain(`${path}:2: not valid JSON`);
    expect(stderr).toContain(`${path}:4: expected a JSON object`);
    expect(stderr).toContain(`${path}:5: "reset" must be a string`);
    expect(stderr).toContain('3 bad line(s)');
  });
});

describe('loopguard replay --otlp', () => {
  it('replays the execute_tool spans of a real OTLP/JSON export and says how many it left out', async () => {
    const exportOf = (calls: [string, string | undefined][]) => {
      const exporter = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(exporter)],
      });
      const tracer = provider.getTracer('replay-otlp-test');
      for (const [i, [tool, args]] of calls.entries()) {
        const captured = args === undefined ? {} : { 'gen_ai.tool.call.arguments': args };
        tracer
          .startSpan(`execute_tool ${tool}`, {
            startTime: 1_767_000_000_000 + i,
            attributes: { 'gen_ai.tool.name': tool, 'loopguard.scope': 'conv-1', ...captured },
          })
          .end();
      }
      return new TextDecoder().decode(
        JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()),
      );
    };
    // captured arguments: a span without them is a call without arguments (loopguard records none)
    const grep: [string, string] = ['grep', '{"q":"TODO"}'];
    const whoami: [string, undefined] = ['whoami', undefined];
    const mixed = file([exportOf([grep, whoami, grep, whoami, grep])]);
    const { code, stdout, stderr } = await replay(mixed, { otlp: true });
    expect(code).toBe(0);
    expect(records(stdout).map((r) => [r.tool, r.streak])).toEqual([
      ['grep', 1],
      ['whoami', 1],
      ['grep', 1],
      ['whoami', 1],
      ['grep', 1],
    ]);
    expect(records(stdout)[1]!.signature).toBe(signatureOf('whoami', {}));
    expect(stderr).toBe('');
    // nothing captured: recorded without capture, nothing to replay
    const bare = await replay(file([exportOf([whoami, ['grep', undefined]])]), { otlp: true });
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('2 tool span(s) without captured arguments were left out');
    // a JSON-lines export with a cut line: that line is reported, the others replayed
    const lines = [exportOf([grep]), '{"resourceSpans": [', exportOf([grep])];
    const cut = await replay(file(lines), { otlp: true });
    expect(cut.code).toBe(2);
    expect(records(cut.stdout).map((r) => r.streak)).toEqual([1, 2]);
    expect(cut.stderr).toMatch(/:2: not JSON/);
  });
});

describe('loopguard replay --otlp: a call the engine cannot take', () => {
  it('is named by its line and span, not by its place in start-time order', async () => {
    const exploding = '{"explode":true}';
    const request = (spans: [string, number, string][]) =>
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: spans.map(([spanId, start, args]) => ({
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId,
                  name: 'execute_tool grep',
                  startTimeUnixNano: String(start),
                  attributes: [{ key: 'gen_ai.tool.call.arguments', value: { stringValue: args } }],
                })),
              },
            ],
          },
        ],
      });
    // the failing call is the second by start time, on line 1
    const path = file([
      request([['00000000000000d1', 20, exploding]]),
      request([
        ['00000000000000a1', 10, '{"q":1}'],
        ['00000000000000a2', 30, '{"q":1}'],
      ]),
    ]);
    const { code, stdout, stderr } = await replay(path, { otlp: true });
    expect(code).toBe(2);
    expect(records(stdout).map((r) => r.i)).toEqual([1, 3]);
    expect(stderr).toContain(
      `${path}: line 1, span 00000000000000d1: the engine failed on this call`,
    );
    expect(stderr).not.toContain(`${path}:2:`);
  });
});

describe('loopguard replay: awkward input', () => {
  it('reads a file that starts with a byte-order mark', async () => {
    const path = file(['\ufeff{"tool":"grep","args":{"q":1}}', '{"tool":"grep","args":{"q":1}}']);
    const { code, stdout } = await replay(path);
    expect(code).toBe(0);
    expect(records(stdout).map((r) => r.streak)).toEqual([1, 2]);
  });

  it('reports a line the engine cannot take, and replays the others', async () => {
    const path = file([
      '{"tool":"grep","args":{"q":1}}',
      '{"tool":"grep","args":{"explode":true}}',
      '{"tool":"grep","args":{"q":1}}',
    ]);
    const { code, stdout, stderr } = await replay(path);
    expect(code).toBe(2);
    expect(records(stdout).map((r) => r.i)).toEqual([1, 3]);
    expect(stderr).toContain(`${path}:2: the engine failed on this call: simulated engine failure`);
  });

  it('replays arguments nested 20 000 deep like any other line (the engine cuts them at 1 000)', async () => {
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const path = file([
      '{"tool":"grep","args":{"q":1}}',
      `{"tool":"grep","args":${deep}}`,
      `{"tool":"grep","args":${deep}}`,
    ]);
    const { code, stdout } = await replay(path);
    expect(code).toBe(0);
    expect(records(stdout).map((r) => [r.i, r.streak])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
  });

  it('refuses a --config file it cannot read instead of replaying under defaults', async () => {
    await expect(replay(SAMPLE, { config: '/nonexistent/loopguard.json' })).rejects.toThrow(
      'cannot read --config /nonexistent/loopguard.json',
    );
  });

  it('refuses a --config file it cannot parse or that has bad keys, instead of replaying without them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-replay-config-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"guardrails": {"hardStop": true}');
    await expect(replay(SAMPLE, { config: broken })).rejects.toThrow(
      `--config ${broken} is not valid, nothing was replayed`,
    );
    const typo = join(dir, 'typo.yaml');
    writeFileSync(typo, 'guardrails:\n  hardStop: true\n  warnAfter:\n    repetiton: 3\n');
    await expect(replay(SAMPLE, { config: typo })).rejects.toThrow(
      'unknown key guardrails.warnAfter.repetiton',
    );
  });
});

describe('loopguard replay (table)', () => {
  it('prints the calls with findings and a summary', async () => {
    const { code, stdout } = await replay(SAMPLE, { json: false, config: HARD_STOP });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^#\s+scope\s+tool\s+signature/);
    expect(stdout).toMatch(/calls 54 {3}nudges \d+ {3}warns \d+ {3}blocks [1-9]\d* {3}halts [1-9]/);
    expect(stdout).toContain('longest streak 18');
    expect(stdout).toContain('top signatures:');
    expect(stdout).toMatch(/browser_navigate:[0-9a-f]{16}/);
  });
});

describe('the loopguard binary', () => {
  const bin = fileURLToPath(new URL('../bin/loopguard.js', import.meta.url));

  it('prints help and rejects unknown commands', () => {
    const help = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help).toContain('loopguard replay');
    expect(help).toContain('--retention');
    // as the README: "ran" is an input field, and retention has no default (spans are kept)
    expect(help).toContain('"ran"?');
    expect(help).not.toContain('[--retention 7d]');
    expect(help).toContain('unless --retention');
    const bad = spawnSync(process.execPath, [bin, 'frobnicate'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('unknown command "frobnicate"');
  });

  it('stops quietly when the reader of its output goes away (| head)', async () => {
    const child = spawn(process.execPath, [bin, 'replay', '--json', SAMPLE], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('config check names each bad key and value, and accepts a good file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-check-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'guardrails:\n  hardStop: sometimes\n  warnAfter:\n    repetiton: 3\n');
    const result = spawnSync(process.execPath, [bin, 'config', 'check', bad], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('guardrails.hardStop must be true or false, got "sometimes"');
    expect(result.stderr).toContain('unknown key guardrails.warnAfter.repetiton');
    const ok = spawnSync(process.execPath, [bin, 'config', 'check', HARD_STOP], {
      encoding: 'utf8',
    });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain(': ok');
  });
});
