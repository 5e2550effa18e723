import { basename, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertConfigFile } from '../config-option.js';
import { printable } from '../printable.js';
import { engineDetector } from './engine-detector.js';
import { examplesOf } from './examples.js';
import { type InputFormat, type InputProblem, readRuns } from './inputs.js';
import { readLabels } from './labels.js';
import { type Evaluated, groupFigures } from './metrics.js';
import { peerDetectors } from './peers.js';
import { type SweepReport, sweepConfig } from './sweep.js';
import { examplesText, reportText, sweepText } from './table.js';
import type { Detector, EvalReport, Label, Run } from './types.js';

/** Options of `loopguard eval`. */
export interface EvalOptions {
  /** Files and folders of trajectories. */
  inputs: string[];
  /** The labels file. */
  labels: string;
  /** Engine config files, one configuration each; none: the shipped `default` and `hard-stop`. */
  configs: string[];
  /** Every input file is read in this format; by default each file's is recognised. */
  format?: InputFormat;
  json: boolean;
  examples: boolean;
  /**
   * Also sweep `guardrails.hardStopAfter` of each configuration with hard stop on (or, when none
   * has it on, of the first with hard stop turned on) and report the settings no other beats.
   */
  sweep?: boolean;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream & { isTTY?: boolean };
}

/** The configurations shipped with the command line (packages/cli/configs). */
export const SHIPPED_CONFIGS: readonly string[] = ['default', 'hard-stop'].map((name) =>
  fileURLToPath(new URL(`../../configs/${name}.json`, import.meta.url)),
);

const NAMES_SHOWN = 5;
const PROGRESS_MS = 100;

/** A progress line on a terminal's stderr (rewritten in place, cleared at the end). */
class Progress {
  #last = 0;
  #shown = false;

  constructor(private readonly err: EvalOptions['err']) {}

  update(text: () => string): void {
    if (this.err.isTTY !== true) return;
    const now = Date.now();
    if (this.#shown && now - this.#last < PROGRESS_MS) return;
    this.#last = now;
    this.#shown = true;
    this.err.write(`\r\x1b[K${text()}`);
  }

  done(): void {
    if (this.#shown) this.err.write('\r\x1b[K');
    this.#shown = false;
  }
}

/** Names configurations after their files (`hard-stop.json`: `hard-stop`), by path where two share one. */
function configNames(files: readonly string[]): string[] {
  const short = files.map((file) => basename(file, extname(file)));
  return short.map((name, i) =>
    short.indexOf(name) === short.lastIndexOf(name) ? name : files[i]!,
  );
}

function namesList(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).map((n) => printable(JSON.stringify(n)));
  return `${shown.join(', ')}${names.length > NAMES_SHOWN ? `, … (${names.length - NAMES_SHOWN} more)` : ''}`;
}

/**
 * Runs `loopguard eval`: replays every labelled run with each configuration, and the peer rules,
 * and prints the figures; returns the exit code (2 when some files, lines or labels were bad:
 * they are named on stderr and the rest is evaluated).
 */
export async function runEval(options: EvalOptions): Promise<number> {
  const { err } = options;
  let bad = 0;
  const problem = ({ where, message }: InputProblem) => {
    bad += 1;
    err.write(`${printable(where)}: ${printable(message)}\n`);
  };
  const configs = options.configs.length > 0 ? options.configs : SHIPPED_CONFIGS;
  for (const file of configs) assertConfigFile(file, 'evaluated');
  const labelsRead = readLabels(options.labels);
  for (const error of labelsRead.errors) problem(error);
  const progress = new Progress(err);
  const { runs, files } = await readRuns(options.inputs, {
    format: options.format,
    exclude: [options.labels, ...configs],
    problem,
    note: err,
    progress: (done, total) => progress.update(() => `eval: reading file ${done + 1}/${total}`),
  });
  const { evaluated, unlabelled, notFound } = matchLabels(runs, labelsRead.labels, options.labels);
  if (unlabelled.length > 0) {
    err.write(
      `loopguard eval: ${unlabelled.length} run(s) without a label left out: ${namesList(unlabelled)}\n`,
    );
  }
  if (notFound.length > 0) {
    err.write(
      `loopguard eval: ${notFound.length} labelled run(s) found in no input left out: ${namesList(notFound)}\n`,
    );
  }
  const names = configNames(configs);
  const detectors: Detector[] = [
    ...configs.map((file, i) =>
      engineDetector(
        names[i]!,
        file,
        (message) => err.write(`loopguard: ${names[i]}: ${printable(message)}\n`),
        (where, message) => problem({ where, message }),
      ),
    ),
    ...peerDetectors(),
  ];
  const rows: Evaluated[] = evaluated.map(({ run, label }) => ({ run, label, outcomes: [] }));
  for (const detector of detectors) {
    for (const [i, row] of rows.entries()) {
      progress.update(() => `eval: ${detector.name} ${i + 1}/${rows.length} runs`);
      row.outcomes.push(detector.run(row.run));
    }
  }
  progress.done();
  const report: EvalReport = {
    inputs: {
      files,
      runs: runs.length,
      evaluated: rows.length,
      unlabelled: unlabelled.length,
      notFound: notFound.length,
      bad,
    },
    detectors: detectors.map(({ name, kind, file, hardStop }) =>
      file === undefined ? { name, kind, hardStop } : { name, kind, file, hardStop },
    ),
    groups: groupFigures(rows, detectors),
  };
  if (options.examples) report.examples = examplesOf(rows, detectors);
  if (options.sweep) {
    const swept = configs.flatMap((file, i) => (detectors[i]!.hardStop ? [i] : []));
    if (swept.length === 0) {
      err.write(
        `loopguard eval: --sweep: no configuration has hard stop on; ${names[0]} is swept with hard stop on\n`,
      );
      swept.push(0);
    }
    report.sweeps = swept.map((i): SweepReport => {
      progress.update(() => `eval: sweeping ${names[i]}`);
      return sweepConfig(
        names[i]!,
        configs[i]!,
        evaluated,
        () => undefined,
        () => undefined,
      );
    });
    progress.done();
  }
  if (options.json) options.out.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    options.out.write(reportText(report));
    if (report.examples !== undefined) options.out.write(examplesText(report.examples));
    if (report.sweeps !== undefined) options.out.write(sweepText(report.sweeps));
  }
  if (bad > 0) {
    err.write(
      `loopguard eval: ${bad} bad file(s), line(s) or label(s) left out; the rest was evaluated\n`,
    );
    return 2;
  }
  return 0;
}

/**
 * The labelled runs read, the runs read without a label, and the labels of runs not read; a
 * labelled run not read that made no calls (`n_calls: 0`) is a run (of no calls), not missing.
 */
function matchLabels(runs: readonly Run[], labels: Map<string, Label>, labelsFile: string) {
  const evaluated: { run: Run; label: Label }[] = [];
  const unlabelled: string[] = [];
  const read = new Set<string>();
  for (const run of runs) {
    read.add(run.scope);
    const label = labels.get(run.scope);
    if (label === undefined) unlabelled.push(run.scope);
    else evaluated.push({ run, label });
  }
  const notFound: string[] = [];
  for (const [scope, label] of labels) {
    if (read.has(scope)) continue;
    if (label.calls === 0) evaluated.push({ run: { scope, file: labelsFile, steps: [] }, label });
    else notFound.push(scope);
  }
  return { evaluated, unlabelled, notFound };
}
