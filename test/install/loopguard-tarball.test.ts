import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  jsonl,
  labelledSet,
  OTLP_CALLS,
  otlpExport,
  REPLAY_CALLS,
} from '../../packages/cli/test/eval-fixtures.js';
import { cleanEnv } from '../../packages/otel/test/helpers/child.js';
import { npmCli, testNodes } from '../../packages/otel/test/helpers/nodes.js';

// What a user does without the repository: `npm install -g ./loopguard-<v>.tgz` into a plain
// prefix, then `loopguard dashboard`, `replay` and `eval`, under every Node version the machine
// has (test/helpers/nodes.ts: 20, and 22 and 24 as scripts/setup.sh installs them).

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NPM_CLI = npmCli();
const NODES = testNodes();

let work: string;
let tarball: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'loopguard-install-'));
  await run(process.execPath, [join(ROOT, 'scripts/pack.mjs'), '--out', join(work, 'packs')]);
  const file = readdirSync(join(work, 'packs')).find((f) => /^loopguard-\d.*\.tgz$/.test(f));
  tarball = join(work, 'packs', file ?? 'missing.tgz');
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function env(node: string): NodeJS.ProcessEnv {
  // the installed `loopguard` starts with `#!/usr/bin/env node`: that node is the one under test
  return cleanEnv({ PATH: `${dirname(node)}:${process.env.PATH ?? ''}` });
}

function untilListening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /loopguard dashboard on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`dashboard exited (${code}): ${out}`)));
  });
}

describe.each(NODES.map(({ version, node }) => [version, node]))(
  'the loopguard tarball on Node %s',
  (_version, node) => {
    it('installs into a plain prefix without warnings; dashboard, replay and eval work there', async () => {
      const prefix = mkdtempSync(join(work, 'prefix-'));
      const installed = await run(
        node,
        [
          NPM_CLI,
          'install',
          '-g',
          '--prefix',
          prefix,
          tarball,
          '--no-audit',
          '--no-fund',
          '--prefer-offline',
        ],
        { env: env(node), maxBuffer: 16 * 1024 * 1024 },
      );
      expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/EBADENGINE|ERESOLVE|peer dep/i);
      const bin = join(prefix, 'bin', 'loopguard');

      const help = await run(bin, ['--help'], { env: env(node) });
      expect(help.stdout).toMatch(/^loopguard/);

      const data = mkdtempSync(join(work, 'data-'));
      const dashboard = spawn(bin, ['dashboard', '--port', '0', '--db', join(data, 'lg.duckdb')], {
        env: env(node),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        const url = await untilListening(dashboard);
        const exported = JSON.stringify(otlpExport(OTLP_CALLS));
        const ingest = await fetch(`${url}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: exported,
        });
        expect(ingest.status).toBe(200);
        // these spans carry no loopguard attributes: the dashboard decides them once settled
        const calls = async () =>
          ((await (await fetch(`${url}/api/summary?from=0`)).json()) as { calls: number }).calls;
        await expect.poll(calls, { timeout: 30_000 }).toBe(OTLP_CALLS.length);
        const page = await (await fetch(`${url}/`)).text();
        const script = /<script[^>]+src="([^"]+)"/.exec(page)?.[1];
        expect(script).toBeDefined();
        expect((await fetch(new URL(script ?? '/', url))).status).toBe(200);
      } finally {
        dashboard.kill('SIGTERM');
      }

      const session = join(data, 'session.jsonl');
      writeFileSync(session, jsonl(REPLAY_CALLS));
      const replay = await run(bin, ['replay', session, '--json'], { env: env(node) }).catch(
        (error: { stdout: string; code: number }) => error,
      );
      const lines = replay.stdout.trim().split('\n');
      expect(lines).toHaveLength(REPLAY_CALLS.length);
      expect(JSON.parse(lines[0] ?? '{}')).toHaveProperty('action', 'allow');

      const { dir, labels } = labelledSet();
      const evaluated = await run(bin, ['eval', dir, '--labels', labels], { env: env(node) });
      expect(evaluated.stdout).toMatch(/^loopguard eval: 7 labelled runs evaluated/);
    }, 240_000);
  },
);
