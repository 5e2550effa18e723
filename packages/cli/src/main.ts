import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runConfigCheck } from './config-command.js';
import { runDashboard, runDemo } from './dashboard-command.js';
import { INPUT_FORMATS, type InputFormat, runEval } from './eval/index.js';
import { GENERAL_HELP, helpFor } from './help.js';
import { runReplay } from './replay-command.js';

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
  // `loopguard replay --help` (anywhere after the command): that command's usage and options
  if (rest.includes('--help') || rest.includes('-h')) {
    out.write(helpFor(command));
    return 0;
  }
  switch (command) {
    case undefined:
    case '-h':
    case '--help':
      out.write(GENERAL_HELP);
      return command === undefined ? 1 : 0;
    case 'help':
      // `loopguard help replay` is `loopguard replay --help`
      out.write(helpFor(rest[0]));
      return 0;
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
        err.write('loopguard replay: give exactly one input file (see loopguard replay --help)\n');
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
    case 'eval': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          labels: { type: 'string' },
          config: { type: 'string', multiple: true, default: [] },
          format: { type: 'string' },
          json: { type: 'boolean', default: false },
          examples: { type: 'boolean', default: false },
          sweep: { type: 'boolean', default: false },
        },
      });
      if (positionals.length === 0 || values.labels === undefined) {
        err.write(
          'loopguard eval: give the trajectory files or folders and --labels FILE (see loopguard eval --help)\n',
        );
        return 1;
      }
      const format = values.format;
      if (format !== undefined && !INPUT_FORMATS.includes(format as InputFormat)) {
        err.write(`loopguard eval: --format is one of ${INPUT_FORMATS.join(', ')}\n`);
        return 1;
      }
      return runEval({
        inputs: positionals,
        labels: values.labels,
        configs: values.config,
        format: format as InputFormat | undefined,
        json: values.json,
        examples: values.examples,
        sweep: values.sweep,
        out,
        err,
      });
    }
    case 'config': {
      const [sub, ...files] = rest;
      if (sub !== 'check' || files.length > 1) {
        err.write(
          'loopguard config: usage: loopguard config check [FILE] (see loopguard config --help)\n',
        );
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
