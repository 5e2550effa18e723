import { createReadStream, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createEngine } from '@loopguard/engine';
import { parseOtlpTrace, type ReplayLine } from './otlp-input.js';
import { parseReplayText, type ReplayError, Replayer } from './replay.js';
import { ReplaySummary, tableHeader, tableRow } from './replay-summary.js';

/** Options of `loopguard replay`. */
export interface ReplayOptions {
  file: string;
  config?: string;
  json: boolean;
  otlp: boolean;
  all: boolean;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream & { isTTY?: boolean };
}

const PROGRESS_EVERY = 100_000;
const PROGRESS_MIN_BYTES = 8 * 1024 * 1024;

async function* jsonlLines(
  file: string,
): AsyncGenerator<{ line: number; value: ReplayLine | string }> {
  const input = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    yield { line, value: parseReplayText(text) };
  }
}

async function* otlpLines(
  file: string,
  err: NodeJS.WritableStream,
): AsyncGenerator<{ line: number; value: ReplayLine | string }> {
  const { calls, skipped } = parseOtlpTrace(await readFile(file, 'utf8'));
  if (skipped > 0) {
    err.write(
      `loopguard: ${skipped} tool span(s) without captured arguments were left out; record with ` +
        'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true to replay them\n',
    );
  }
  for (const [i, call] of calls.entries()) yield { line: i + 1, value: call };
}

/** Runs `loopguard replay`; returns the exit code (2 when some lines were bad). */
export async function runReplay(options: ReplayOptions): Promise<number> {
  const size = statSync(options.file).size;
  const engine = createEngine({
    configFile: options.config,
    onDiagnostic: (m) => options.err.write(`loopguard: ${m}\n`),
  });
  const replayer = new Replayer(engine);
  const summary = new ReplaySummary();
  const errors: ReplayError[] = [];
  const progress = options.err.isTTY === true && size >= PROGRESS_MIN_BYTES;
  if (!options.json) options.out.write(`${tableHeader()}\n`);
  let seen = 0;
  for await (const { line, value } of options.otlp
    ? otlpLines(options.file, options.err)
    : jsonlLines(options.file)) {
    seen += 1;
    if (progress && seen % PROGRESS_EVERY === 0) options.err.write(`\rreplayed ${seen} lines…`);
    if (typeof value === 'string') {
      errors.push({ line, message: value });
      options.err.write(`${options.file}:${line}: ${value}\n`);
      continue;
    }
    const record = replayer.play(value);
    if (record === undefined) continue;
    summary.add(record);
    if (options.json) options.out.write(`${JSON.stringify(record)}\n`);
    else if (options.all || record.action !== 'allow') options.out.write(`${tableRow(record)}\n`);
  }
  if (progress) options.err.write('\r\x1b[K');
  if (!options.json) {
    options.out.write(`\n${summary.lines().join('\n')}\n`);
    if (!options.all)
      options.out.write(
        '(rows shown: calls with an action other than allow; --all shows every call)\n',
      );
  }
  if (errors.length > 0) {
    options.err.write(
      `loopguard: ${errors.length} bad line(s) skipped; every other line was replayed\n`,
    );
    return 2;
  }
  return 0;
}
