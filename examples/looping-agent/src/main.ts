#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { runLoopingAgent } from './run.js';

const USAGE =
  'usage: node examples/looping-agent/dist/main.js [--sessions N] [--loop] [--interval-ms N]';

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`--${name} must be a non-negative integer, got "${value}"\n${USAGE}`);
  return n;
}

/** CLI entry: runs the looping agent against the OTLP endpoint and prints one line per session. */
async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      sessions: { type: 'string' },
      loop: { type: 'boolean', default: false },
      'interval-ms': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const summary = await runLoopingAgent({
    sessions: count(values.sessions, 'sessions', 6),
    loop: values.loop,
    intervalMs:
      values['interval-ms'] === undefined
        ? undefined
        : count(values['interval-ms'], 'interval-ms', 0),
    signal: controller.signal,
    onSession: (s) =>
      process.stdout.write(
        `${s.conversationId}  hard_stop=${s.hardStop}  steps=${s.steps}  tool_calls=${s.toolCalls}  ${s.outcome}  loop_tokens=${s.loopTokens.inputTokens + s.loopTokens.outputTokens}\n`,
      ),
  });
  const a = summary.actions;
  const t = summary.loopTokens;
  const where = summary.exportError ? 'run (not all exported)' : `exported to ${summary.tracesUrl}`;
  process.stdout.write(
    `${summary.sessionCount} sessions ${where}: ` +
      `allow=${a.allow} nudge=${a.nudge} warn=${a.warn} block=${a.block} halt=${a.halt}; ` +
      `spent in loops: ${t.inputTokens + t.outputTokens} tokens (${t.cachedInputTokens} cached input)\n`,
  );
  if (summary.exportError) {
    process.stderr.write(
      `looping-agent: export to ${summary.tracesUrl} failed: ${summary.exportError}\n`,
    );
    return 1;
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `looping-agent: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
