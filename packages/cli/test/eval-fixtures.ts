// A small labelled set for the `loopguard eval` tests, in each input format, whose figures are
// worked out by hand in eval.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { onTestFinished } from 'vitest';
import { type EvalOptions, runEval } from '../src/eval/index.js';

export interface Call {
  scope: string;
  tool: string;
  args: unknown;
  ok: boolean;
  result: string;
}

const times = (n: number, call: Call): Call[] => Array.from({ length: n }, () => ({ ...call }));

/**
 * agent-a (replay JSONL): s1, 8 identical successful `bash` calls (stuck, onset 2); s2, 3 edits
 * with different arguments (stuck, onset 1: a stuck run nobody catches).
 */
export const REPLAY_CALLS: Call[] = [
  ...times(8, { scope: 's1', tool: 'bash', args: { command: 'make' }, ok: true, result: 'fail' }),
  ...[1, 2, 3].map((n) => ({ scope: 's2', tool: 'edit', args: { n }, ok: true, result: `r${n}` })),
];

/**
 * agent-b (OTLP JSON): h1, the same edit failing twice then another one succeeding (healthy);
 * h2, the same edit failing 5 times (healthy, resolved); h3, 3 different greps (healthy,
 * resolved).
 */
export const OTLP_CALLS: Call[] = [
  ...times(2, { scope: 'h1', tool: 'edit', args: { path: 'x' }, ok: false, result: 'E1' }),
  { scope: 'h1', tool: 'edit', args: { path: 'y' }, ok: true, result: 'done' },
  ...times(5, { scope: 'h2', tool: 'edit', args: { path: 'z' }, ok: false, result: 'E' }),
  ...['a', 'b', 'c'].map((p) => ({ scope: 'h3', tool: 'grep', args: { p }, ok: true, result: p })),
];

/** agent-c (a chat transcript, one conversation per file): lim-1, the same lookup 3 times. */
export const CHAT = {
  id: 'lim-1',
  messages: [
    { role: 'system', content: 'You are a helpful agent.' },
    { role: 'user', content: 'Find x.' },
    ...[1, 2, 3].flatMap((n) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${n}`,
            type: 'function',
            function: { name: 'lookup', arguments: '{"q":"x"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: `call_${n}`, content: 'nothing found' },
    ]),
    { role: 'assistant', content: 'I could not find x.' },
  ],
};

export const LABELS = {
  rule: 'written by hand for the tests',
  labels: {
    s1: { label: 'stuck', onset: 2, source: 'agent-a' },
    s2: { label: 'stuck', onset: 1, source: 'agent-a' },
    h0: { label: 'healthy', resolved: false, n_calls: 0, source: 'agent-b' },
    h1: { label: 'healthy', resolved: false, source: 'agent-b' },
    h2: { label: 'healthy', resolved: true, source: 'agent-b' },
    h3: { label: 'healthy', resolved: true, source: 'agent-b' },
    'lim-1': { label: 'limit_norep', source: 'agent-c' },
  },
};

const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** An OTLP JSON trace export of the calls: one `execute_tool` span each, arguments captured. */
export function otlpExport(calls: readonly Call[]) {
  const spans = calls.map((c, i) => ({
    traceId: 'aa'.repeat(16),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: `execute_tool ${c.tool}`,
    kind: 1,
    startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n + 500n),
    attributes: [
      attr('gen_ai.operation.name', 'execute_tool'),
      attr('gen_ai.tool.name', c.tool),
      attr('gen_ai.conversation.id', c.scope),
      attr('gen_ai.tool.call.arguments', JSON.stringify(c.args)),
      attr('gen_ai.tool.call.result', c.result),
    ],
    status: { code: c.ok ? 1 : 2 },
  }));
  return { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] };
}

/** A temporary folder holding `files` (name: text), removed after the test. */
export function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-eval-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

export const jsonl = (values: readonly unknown[]) =>
  `${values.map((v) => JSON.stringify(v)).join('\n')}\n`;

/** The labelled set of the fixtures above: a folder of three inputs, and the labels file. */
export function labelledSet(): { dir: string; labels: string } {
  const dir = folder({
    'agent-a.jsonl': jsonl(REPLAY_CALLS),
    'agent-b.json': JSON.stringify(otlpExport(OTLP_CALLS), null, 2),
    'agent-c.json': JSON.stringify(CHAT, null, 2),
    'labels.json': JSON.stringify(LABELS, null, 2),
  });
  return { dir, labels: join(dir, 'labels.json') };
}

function collect(stream: PassThrough): () => string {
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString()));
  return () => chunks.join('');
}

/** Runs `loopguard eval` in process; `tty`: stderr is a terminal. */
export async function evaluate(
  options: Partial<Omit<EvalOptions, 'out' | 'err'>> & Pick<EvalOptions, 'inputs' | 'labels'>,
  tty = false,
) {
  const out = new PassThrough();
  const err = Object.assign(new PassThrough(), { isTTY: tty });
  const stdout = collect(out);
  const stderr = collect(err);
  const code = await runEval({ configs: [], json: false, examples: false, ...options, out, err });
  return { code, stdout: stdout(), stderr: stderr() };
}
