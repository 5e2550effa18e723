import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, toolSpans } from './helpers/otlp-receiver.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const main = join(root, 'examples/looping-agent/dist/main.js');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Builds engine, otel and the example (tsc, in that order) where dist is older than src. */
function buildIfStale(): void {
  let rebuilt = false;
  for (const p of ['packages/engine', 'packages/otel', 'examples/looping-agent']) {
    let stale = rebuilt;
    try {
      stale ||= newest(join(root, p, 'src')) > newest(join(root, p, 'dist'));
    } catch {
      stale = true;
    }
    if (!stale) continue;
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', join(root, p, 'tsconfig.build.json')], {
      stdio: 'inherit',
    });
    rebuilt = true;
  }
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runMain(
  args: string[],
  endpoint: string,
  onStdout?: (text: string, stop: () => void) => void,
  env: Record<string, string> = {},
) {
  const child = spawn(process.execPath, [main, ...args], {
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    onStdout?.(stdout, () => child.kill('SIGTERM'));
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise<Exit>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;

beforeAll(async () => {
  buildIfStale();
  receiver = await startOtlpReceiver();
}, 300_000);

afterAll(() => receiver.close());

describe('node examples/looping-agent/dist/main.js', () => {
  it('runs --sessions N and exports them to OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const before = receiver.spans.length;
    const exit = await runMain(['--sessions', '2'], receiver.endpoint, undefined, {
      OTEL_SERVICE_NAME: 'looping-agent-cli',
    });
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
    const lines = exit.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain(`2 sessions exported to ${receiver.endpoint}/v1/traces`);
    const spans = toolSpans(receiver.spans.slice(before));
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['looping-agent-cli']));
    expect(new Set(spans.map((s) => s.attributes['loopguard.scope'])).size).toBe(2);
  });

  it('keeps producing sessions with --loop until SIGTERM, then flushes and exits 0', async () => {
    const before = receiver.spans.length;
    let stopped = false;
    const exit = await runMain(
      ['--loop', '--interval-ms', '20'],
      receiver.endpoint,
      (out, stop) => {
        if (!stopped && out.split('\n').filter((l) => l.includes('hard_stop=')).length >= 7) {
          stopped = true;
          stop();
        }
      },
    );
    expect(exit.code).toBe(0);
    const reported = exit.stdout
      .split('\n')
      .filter((l) => l.includes('hard_stop='))
      .map((l) => l.split(' ')[0]);
    expect(reported.length).toBeGreaterThanOrEqual(7);
    const exported = new Set(
      toolSpans(receiver.spans.slice(before)).map((s) => s.attributes['loopguard.scope']),
    );
    for (const id of reported) expect(exported.has(id)).toBe(true);
    expect(exit.stdout).toMatch(/sessions exported to .*block=[1-9]\d* halt=[1-9]/);
  });

  it('reports an unreachable endpoint on stderr with exit code 1, after the summary', async () => {
    const probe = await startOtlpReceiver();
    const deadEndpoint = probe.endpoint;
    await probe.close();
    const exit = await runMain(['--sessions', '1'], deadEndpoint, undefined, {
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
    });
    expect(exit.code).toBe(1);
    expect(exit.stdout).toContain('1 sessions run (not all exported): allow=');
    expect(exit.stdout).not.toContain('exported to');
    expect(exit.stderr).toContain(`looping-agent: export to ${deadEndpoint}/v1/traces failed:`);
  });

  it('rejects a bad option with a clear message and exit code 1', async () => {
    const exit = await runMain(['--sessions', 'many'], receiver.endpoint);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('--sessions must be a non-negative integer, got "many"');
  });
});
