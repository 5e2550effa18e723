import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';

// The built binary, as a user runs it (needs `pnpm run build`: cli, dashboard, example agent).
const bin = fileURLToPath(new URL('../bin/loopguard.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'loopguard-cli-dashboard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(args: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exit;
  });
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Starts `loopguard dashboard` and resolves to its port once it prints its URL. */
async function startDashboard(
  db: string,
  host = '127.0.0.1',
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ run: Run; port: number }> {
  const r = run(['dashboard', '--port', '0', '--host', host, '--db', db], env);
  const port = await new Promise<number>((resolve, reject) => {
    const check = () => {
      const m = /dashboard on http:\/\/[^:]+:(\d+)/.exec(r.stdout());
      if (m) resolve(Number(m[1]));
    };
    r.child.stdout?.on('data', check);
    r.exit.then((code) => reject(new Error(`dashboard exited (${code}): ${r.stderr()}`)));
  });
  return { run: r, port };
}

describe('loopguard dashboard: common mistakes', () => {
  it('a second dashboard on a port in use says so and names --port', async () => {
    const first = await startDashboard(join(dir, 'a.duckdb'));
    const second = run(['dashboard', '--port', String(first.port), '--db', join(dir, 'b.duckdb')]);
    expect(await second.exit).toBe(1);
    expect(second.stderr()).toContain(
      `cannot listen on 127.0.0.1:${first.port}: the port is already in use`,
    );
    expect(second.stderr()).toContain('choose another port with --port');
  });

  it('a second dashboard on a database in use names the --db file', async () => {
    const db = join(dir, 'held.duckdb');
    await startDashboard(db);
    const second = run(['dashboard', '--port', '0', '--db', db]);
    expect(await second.exit).toBe(1);
    expect(second.stderr()).toContain(`cannot open the DuckDB file ${db} (--db)`);
    expect(second.stderr()).toContain('another loopguard dashboard may be using it');
  });
});

describe('loopguard dashboard: an exposed address', () => {
  const env = { ...process.env, LOOPGUARD_TOKEN: '' };

  it('warns when it listens beyond loopback without a token', async () => {
    const { run: r } = await startDashboard(join(dir, 'open.duckdb'), '0.0.0.0', env);
    // stderr and stdout are two pipes: the warning, written first, may be read second
    await vi.waitFor(() => expect(r.stderr()).toContain('warning'));
    expect(r.stderr()).toMatch(
      /loopguard dashboard: warning: listening on 0\.0\.0\.0:\d+ without a token: anyone who can reach this port/,
    );
  });

  it('does not warn with a token, nor on loopback', async () => {
    const tokened = await startDashboard(join(dir, 'tok.duckdb'), '0.0.0.0', {
      ...env,
      LOOPGUARD_TOKEN: 'a-long-secret-token',
    });
    const local = await startDashboard(join(dir, 'local.duckdb'), '127.0.0.1', env);
    expect(tokened.run.stderr()).not.toContain('warning');
    expect(local.run.stderr()).not.toContain('warning');
  });
});

/** An OTLP/JSON request of `n` OpenInference TOOL spans of one session, the same search each. */
function openInferenceRequest(n: number, session: string): string {
  const start = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: n }, (_, i) => ({
    traceId: (i + 1).toString(16).padStart(32, 'a'),
    spanId: (i + 1).toString(16).padStart(16, 'b'),
    name: 'search_docs',
    kind: 1,
    startTimeUnixNano: String(start + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(start + BigInt(i) * 1_000_000n + 500_000n),
    attributes: [
      ['openinference.span.kind', 'TOOL'],
      ['tool.name', 'search_docs'],
      ['input.value', '{"query":"refund policy"}'],
      ['output.value', 'no results'],
      ['session.id', session],
    ].map(([key, value]) => ({ key, value: { stringValue: value } })),
  }));
  return JSON.stringify({
    resourceSpans: [
      {
        resource: {
          attributes: [{ key: 'service.name', value: { stringValue: 'oi-app' } }],
        },
        scopeSpans: [{ scope: { name: 'openinference' }, spans }],
      },
    ],
  });
}

describe('loopguard dashboard: spans waiting for detection', () => {
  it('keeps them through a kill, and decides them after the restart', async () => {
    const db = join(dir, 'journal.duckdb');
    const journal = `${db}.detect.jsonl`;
    const first = await startDashboard(db);
    const res = await fetch(`http://127.0.0.1:${first.port}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: openInferenceRequest(6, 'killed-session'),
    });
    expect(res.status).toBe(200);
    // answered before the scope settled (2 s quiet): the six spans wait in the journal only
    first.run.child.kill('SIGKILL');
    await first.run.exit;
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(6);

    const second = await startDashboard(db);
    const url = `http://127.0.0.1:${second.port}`;
    const range = `from=0&to=${Date.now() + 86_400_000}`;
    let summary = { calls: 0, nudges: 0 };
    for (let i = 0; i < 200 && summary.calls < 6; i++) {
      await new Promise((r) => setTimeout(r, 50));
      summary = (await (await fetch(`${url}/api/summary?${range}`)).json()) as typeof summary;
    }
    expect(summary).toMatchObject({ calls: 6, sessions: 1 });
    // decided as they would have been: the streak nudge at 3 and at 5
    expect(summary.nudges).toBe(2);
    for (let i = 0; i < 100 && readFileSync(journal, 'utf8') !== ''; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(readFileSync(journal, 'utf8')).toBe('');
    second.run.child.kill('SIGINT');
    expect(await second.run.exit).toBe(0);
  });

  it('has no journal with --no-detect', async () => {
    const db = join(dir, 'nodetect.duckdb');
    const r = run(['dashboard', '--port', '0', '--db', db, '--no-detect']);
    await new Promise<void>((resolve) => {
      r.child.stdout?.on('data', () => {
        if (/dashboard on/.test(r.stdout())) resolve();
      });
    });
    expect(existsSync(`${db}.detect.jsonl`)).toBe(false);
  });
});

describe('loopguard demo', () => {
  it('fails when its agent stops on its own, instead of exiting 0', async () => {
    const demo = run([
      'demo',
      '--port',
      '0',
      '--db',
      join(dir, 'demo.duckdb'),
      '--interval-ms',
      'abc',
    ]);
    expect(await demo.exit).toBe(1);
    expect(demo.stderr()).toContain('--interval-ms must be a non-negative integer, got "abc"');
    expect(demo.stderr()).toContain('loopguard demo: the demo agent stopped (exit code 1)');
  });

  it('exits 0 when stopped with Ctrl-C', async () => {
    const demo = run(['demo', '--port', '0', '--db', join(dir, 'demo-ok.duckdb')]);
    await new Promise<void>((resolve) => {
      const check = () => {
        // the agent's first session line: the dashboard and the agent both run
        if (/-001-grep-loop/.test(demo.stdout())) resolve();
      };
      demo.child.stdout?.on('data', check);
    });
    demo.child.kill('SIGINT');
    expect(await demo.exit).toBe(0);
    expect(demo.stderr()).not.toContain('the demo agent stopped');
  });
});
