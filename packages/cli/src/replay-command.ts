import { createReadStream, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createEngine } from '@loopguard/engine';
import { assertConfigFile } from './config-option.js';
import { parseOtlpTrace } from './otlp-input.js';
import { printable } from './printable.js';
import { parseReplayText, Replayer } from './replay.js';
import { ReplaySummary, tableHeader, tableRow } from './replay-summary.js';
import type { ReplayLine, ReplayOptions } from './types.js';

const PROGRESS_EVERY = 100_000;
const PROGRESS_MIN_BYTES = 8 * 1024 * 1024;

/** An input line or call, and where it is: `:<line>`, or `: [line <n>, ]span <id>` of an OTLP call. */
export type Located = { where: string; value: ReplayLine | string };

/** The lines of a replay JSONL file, each parsed (or the reason it cannot be used). */
export async function* jsonlLines(file: string): AsyncGenerator<Located> {
  const input = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const raw of lines) {
    line += 1;
    // a byte-order mark some editors write before the first line
    const text = line === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    if (text.trim() === '') continue;
    yield { where: `:${line}`, value: parseReplayText(text) };
  }
}

/** The calls of an OTLP JSON trace export in start-time order; notes what was left out on `err`. */
export async function* otlpLines(
  file: string,
  err: NodeJS.WritableStream,
): AsyncGenerator<Located> {
  const { calls, origins, skipped, cutShort, errors } = parseOtlpTrace(
    await readFile(file, 'utf8'),
  );
  for (const { line, message } of errors) yield { where: `:${line}`, value: message };
  if (skipped > 0) {
    err.write(
      `loopguard: ${skipped} tool span(s) without captured arguments were left out; record with ` +
        'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true to replay them\n',
    );
  }
  if (cutShort > 0) {
    err.write(
      `loopguard: ${cutShort} tool run(s) cut short by an interrupt were left out; the run that ` +
        'completed on resume is the call, as the live engine counted it\n',
    );
  }
  // calls are in start-time order: each is named by its span (and line), not by its position
  for (const [i, call] of calls.entries()) yield { where: `: ${origins[i]}`, value: call };
}

/** Writes a chunk, waiting while the stream's buffer is full (a slow pipe, a large replay). */
async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', resolve));
}

/** Runs `loopguard replay`; returns the exit code (2 when some lines were bad). */
export async function runReplay(options: ReplayOptions): Promise<number> {
  const size = statSync(options.file).size;
  if (options.config !== undefined) assertConfigFile(options.config, 'replayed');
  const engine = createEngine({
    configFile: options.config,
    onDiagnostic: (m) => options.err.write(`loopguard: ${printable(m)}\n`),
  });
  const replayer = new Replayer(engine);
  const summary = new ReplaySummary();
  let bad = 0;
  const progress = options.err.isTTY === true && size >= PROGRESS_MIN_BYTES;
  if (!options.json) options.out.write(`${tableHeader()}\n`);
  let seen = 0;
  for await (const { where, value } of options.otlp
    ? otlpLines(options.file, options.err)
    : jsonlLines(options.file)) {
    seen += 1;
    if (progress && seen % PROGRESS_EVERY === 0) options.err.write(`\rreplayed ${seen} lines…`);
    if (typeof value === 'string') {
      bad += 1;
      options.err.write(`${options.file}${printable(where)}: ${printable(value)}\n`);
      continue;
    }
    let record: ReturnType<Replayer['play']>;
    try {
      record = replayer.play(value);
    } catch (error) {
      // a line the engine cannot take (a defect of the engine): reported like a bad line
      const message = `the engine failed on this call: ${(error as Error).message}`;
      bad += 1;
      options.err.write(`${options.file}${printable(where)}: ${printable(message)}\n`);
      continue;
    }
    if (record === undefined) continue;
    summary.add(record);
    if (options.json) await write(options.out, `${JSON.stringify(record)}\n`);
    else if (options.all || record.action !== 'allow')
      await write(options.out, `${tableRow(record)}\n`);
  }
  if (progress) options.err.write('\r\x1b[K');
  if (!options.json) {
    options.out.write(`\n${summary.lines().join('\n')}\n`);
    if (!options.all)
      options.out.write(
        '(rows shown: calls with an action other than allow; --all shows every call)\n',
      );
  }
  if (bad > 0) {
    options.err.write(`loopguard: ${bad} bad line(s) skipped; every other line was replayed\n`);
    return 2;
  }
  return 0;
}
