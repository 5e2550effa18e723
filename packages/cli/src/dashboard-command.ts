import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { assertConfigFile } from './config-option.js';

const EXAMPLE_AGENT = fileURLToPath(
  new URL('../../../examples/looping-agent/dist/main.js', import.meta.url),
);

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** `loopguard dashboard`: serves until SIGINT/SIGTERM, then closes the store cleanly. */
export async function runDashboard(argv: string[]): Promise<number> {
  const { parseDashboardArgs, startDashboard } = await import('@loopguard/dashboard');
  const options = parseDashboardArgs(argv);
  if (options.config !== undefined) assertConfigFile(options.config, 'served');
  const dashboard = await startDashboard(options);
  for (const w of dashboard.warnings) process.stderr.write(`loopguard dashboard: warning: ${w}\n`);
  process.stdout.write(
    `loopguard dashboard on ${dashboard.url} (OTLP/HTTP: ${dashboard.url}/v1/traces)\n`,
  );
  await untilSignal();
  await dashboard.close();
  return 0;
}

/** `loopguard demo`: the dashboard on the embedded store with the example looping agent feeding it. */
export async function runDemo(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '4318' },
      host: { type: 'string', default: '127.0.0.1' },
      db: { type: 'string', default: '.loopguard/demo.duckdb' },
      'interval-ms': { type: 'string', default: '1500' },
    },
  });
  if (!existsSync(EXAMPLE_AGENT)) {
    process.stderr.write(
      `loopguard demo: the example agent is not built (${EXAMPLE_AGENT}); run pnpm run build\n`,
    );
    return 1;
  }
  const { parseDashboardArgs, startDashboard } = await import('@loopguard/dashboard');
  const dashboard = await startDashboard(
    parseDashboardArgs(['--port', values.port, '--host', values.host, '--db', values.db]),
  );
  for (const w of dashboard.warnings) process.stderr.write(`loopguard demo: warning: ${w}\n`);
  process.stdout.write(
    `loopguard demo: dashboard on ${dashboard.url} — open it in a browser; Ctrl-C stops\n`,
  );
  const agent: ChildProcess = spawn(
    process.execPath,
    [EXAMPLE_AGENT, '--loop', '--interval-ms', values['interval-ms']],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: dashboard.url,
        OTEL_SERVICE_NAME: 'looping-agent-demo',
        // the dashboard names calls by their arguments: the demo records them (redacted)
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      },
    },
  );
  const exited = new Promise<number | null>((resolve) =>
    agent.once('exit', (code) => resolve(code)),
  );
  // the agent loops until stopped: when it ends on its own (bad --interval-ms, a crash), the demo
  // is over and says so, with a failing exit code
  const first = await Promise.race([
    untilSignal().then(() => 'signal' as const),
    exited.then(() => 'agent' as const),
  ]);
  agent.kill('SIGTERM');
  const code = await exited;
  await dashboard.close();
  if (first === 'signal') return 0;
  process.stderr.write(
    `loopguard demo: the demo agent stopped (exit code ${code ?? 'none'}); the dashboard was closed\n`,
  );
  return code === 0 ? 1 : (code ?? 1);
}
