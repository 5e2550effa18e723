import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { jsonlLines, type Located, otlpLines } from '../replay-command.js';
import { isConversation, readChatTranscript } from './chat.js';
import type { Run, Step } from './types.js';

/** The input formats `loopguard eval` reads. */
export type InputFormat = 'replay' | 'otlp' | 'chat';

/** The formats by name, for `--format`. */
export const INPUT_FORMATS: readonly InputFormat[] = ['replay', 'otlp', 'chat'];

/** Where a problem is (`file`, `file:line`, `file: span <id>`, ...) and what it is. */
export interface InputProblem {
  where: string;
  message: string;
}

/** Options of `readRuns`. */
export interface ReadOptions {
  /** Every file is read in this format; by default each file's format is recognised from its text. */
  format?: InputFormat;
  /** Files a folder holds that are not inputs (the labels and config files), as resolved paths. */
  exclude: readonly string[];
  /** Gets every problem as it is found; the rest is read on. */
  problem: (problem: InputProblem) => void;
  /** Notes on what a file left out that are no errors (OTLP spans without captured arguments). */
  note: NodeJS.WritableStream;
  /** Called before each file is read. */
  progress?: (done: number, files: number) => void;
}

const FOLDER_EXTENSIONS = new Set(['.jsonl', '.ndjson', '.json']);

/**
 * Reads the runs of the given files and folders (a folder: its `.jsonl`, `.ndjson` and `.json`
 * files, below it too). A run is one scope; a scope met in a second file is a problem there (its
 * lines are left out), so each run comes from one file.
 */
export async function readRuns(
  paths: readonly string[],
  options: ReadOptions,
): Promise<{ runs: Run[]; files: number }> {
  const files = listFiles(paths, options);
  const runs = new Map<string, Run>();
  for (const [i, file] of files.entries()) {
    options.progress?.(i, files.length);
    const clashes = new Set<string>();
    for await (const item of fileSteps(file, options)) {
      if (typeof item.value === 'string') {
        options.problem({ where: `${file}${item.where}`, message: item.value });
        continue;
      }
      const scope = 'reset' in item.value ? item.value.reset : (item.value.scope ?? 'default');
      let run = runs.get(scope);
      if (run === undefined) {
        run = { scope, file, steps: [] };
        runs.set(scope, run);
      }
      if (run.file !== file) {
        if (!clashes.has(scope)) {
          clashes.add(scope);
          options.problem({
            where: `${file}${item.where}`,
            message: `run ${JSON.stringify(scope)} was read from ${run.file} already; its lines here are left out`,
          });
        }
        continue;
      }
      run.steps.push({ where: `${file}${item.where}`, line: item.value });
    }
  }
  return { runs: [...runs.values()], files: files.length };
}

/** The files named, folders expanded (sorted, hidden entries and excluded files skipped). */
function listFiles(paths: readonly string[], options: ReadOptions): string[] {
  const files: string[] = [];
  const excluded = new Set(options.exclude.map((path) => resolve(path)));
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )) {
      if (entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (FOLDER_EXTENSIONS.has(extname(entry.name)) && !excluded.has(resolve(path))) {
        files.push(path);
      }
    }
  };
  for (const path of paths) {
    try {
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    } catch (error) {
      options.problem({ where: path, message: `cannot read: ${(error as Error).message}` });
    }
  }
  return files;
}

/** The steps of one file, read in its format (problems as strings, as replay reports bad lines). */
async function* fileSteps(file: string, options: ReadOptions): AsyncGenerator<Located> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    yield { where: '', value: `cannot read: ${(error as Error).message}` };
    return;
  }
  const format = options.format ?? formatOf(text);
  if (format === undefined) {
    yield { where: '', value: 'not a replay JSONL, OTLP JSON or chat transcript file' };
  } else if (format === 'replay') {
    yield* jsonlLines(file);
  } else if (format === 'otlp') {
    try {
      yield* otlpLines(file, options.note);
    } catch (error) {
      yield { where: '', value: (error as Error).message };
    }
  } else {
    const perLine = isConversation(firstLineValue(text));
    const read = readChatTranscript(text, basename(file, extname(file)), perLine);
    for (const error of read.errors) yield { where: error.where, value: error.message };
    for (const run of read.runs) yield* chatSteps(run.steps);
  }
}

function* chatSteps(steps: Step[]): Generator<Located> {
  for (const { where, line } of steps) yield { where, value: line };
}

/** The JSON value of the first non-blank line, or undefined when it is not JSON. */
function firstLineValue(text: string): unknown {
  const first = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/, 64)
    .find((line) => line.trim() !== '');
  try {
    return first === undefined ? undefined : JSON.parse(first);
  } catch {
    return undefined;
  }
}

const isOtlp = (value: unknown): boolean => {
  const list = Array.isArray(value) ? value : [value];
  return list.some(
    (item) =>
      typeof item === 'object' &&
      item !== null &&
      ('resourceSpans' in item || 'resource_spans' in item),
  );
};

/** The format of a file, from its first line (JSON lines) or its whole text (one JSON document). */
function formatOf(text: string): InputFormat | undefined {
  const first = firstLineValue(text);
  if (first !== undefined) {
    if (isOtlp(first)) return 'otlp';
    return isConversation(first) ? 'chat' : 'replay';
  }
  let whole: unknown;
  try {
    whole = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    // not one JSON document either: a replay file whose first line is bad (each line is reported)
    return 'replay';
  }
  if (isOtlp(whole)) return 'otlp';
  return isConversation(whole) ? 'chat' : undefined;
}
