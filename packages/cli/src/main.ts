import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runConfigCheck } from './config-command.js';
import { runDashboard, runDemo } from './dashboard-command.js';
import { runReplay } from './replay-command.js';

const HELP = `loopguard — catch LLM agents repeating themselves

Usage:
  loopguard replay FILE.jsonl [--config F] [--json] [--all]
  loopguard replay --otlp FILE.json [--config F] [--json] [--all]
  loopguard config check [FILE]
  loopguard dashboard [--port 4318] [--host 127.0.0.1] [--allowed-host NAME]
                      [--db .loopguard/loopguard.duckdb] [--retention DURATION] [--token T]
                      [--store clickhouse://...]
  loopguard demo [--port 4318] [--host 127.0.0.1] [--db .loopguard/demo.duckdb]
                 [--interval-ms 1500]
  loopguard --help | --version

replay    runs a recorded session through the repetition engine. Input lines are calls
          {"scope"?, "tool", "args"?, "ok"?, "result"?, "ran"?} or {"reset": "<scope>"};
          --otlp reads an OTLP JSON trace export whose spans carry captured arguments.
          --json prints one JSON line per call; otherwise a table of the calls that got
          an action (all calls with --all) and a summary. Exit 2 if some lines were bad.
config    validates a config file strictly and names each bad key and value.
dashboard starts the OTLP/HTTP receiver, the store, the UI and /metrics; it keeps spans
          for good unless --retention (e.g. 7d, 24h, 90m) is given.
demo      starts the dashboard and a scripted looping agent feeding it.
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The loopguard command line; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { stdout: out, stderr: err } = process;
  if (rest.includes('--help') || rest.includes('-h')) {
    out.write(HELP);
    return 0;
  }
  switch (command) {
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      out.write(HELP);
      return command === undefined ? 1 : 0;
    case '-v':
    case '--version':
      out.write(`${version()}\n`);
      return 0;
    case 'replay': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          config: { type: 'string' },
          json: { type: 'boolean', default: false },
          otlp: { type: 'boolean', default: false },
          all: { type: 'boolean', default: false },
        },
      });
      const file = positionals[0];
      if (file === undefined || positionals.length > 1) {
        err.write('loopguard replay: give exactly one input file (see loopguard --help)\n');
        return 1;
      }
      return runReplay({
        file,
        config: values.config,
        json: values.json,
        otlp: values.otlp,
        all: values.all,
        out,
        err,
      });
    }
    case 'config': {
      const [sub, ...files] = rest;
      if (sub !== 'check' || files.length > 1) {
        err.write('loopguard config: usage: loopguard config check [FILE]\n');
        return 1;
      }
      return runConfigCheck(files[0], out, err);
    }
    case 'dashboard':
      return runDashboard(rest);
    case 'demo':
      return runDemo(rest);
    default:
      err.write(`loopguard: unknown command ${JSON.stringify(command)} (see loopguard --help)\n`);
      return 1;
  }
}
