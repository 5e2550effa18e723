import type { FindingAction } from '@loopguard/engine';
import type { ReplayLine } from '../types.js';
import type { SweepReport } from './sweep.js';

/** The label classes of labels.json. */
export type LabelClass = 'stuck' | 'healthy' | 'limit_norep';

/** The label of one run. */
export interface Label {
  label: LabelClass;
  /** 1-based call index where the repetition began (stuck runs; sometimes healthy ones). */
  onset?: number;
  /** Graded as solved by the benchmark (meaningful on healthy runs). */
  resolved: boolean;
  /** Where the run comes from: the figures are given per source as well. */
  source?: string;
  /** Tool calls the run made, when the labels say; a labelled run absent from the inputs with 0 calls is a run. */
  calls?: number;
}

/** One line of a run (a call or a new turn) and where it is in the input (`file:line`, `file: span <id>`). */
export interface Step {
  where: string;
  line: ReplayLine;
}

/** One trajectory: the lines of one scope, in order. */
export interface Run {
  scope: string;
  file: string;
  steps: Step[];
}

/** A call that got a finding: its 1-based index among the run's calls, and what decided. */
export interface Moment {
  call: number;
  action: FindingAction;
  /** The deciding axis (engine) or the rule that fired (peer rules). */
  axis: string;
  tool: string;
  where: string;
  /** The count that crossed the threshold, when the engine says. */
  count?: number;
}

/** What one detector found in one run; a run counts as stopped at its first block or halt. */
export interface RunOutcome {
  /** Calls looked at: up to the first stop, else all of them. */
  calls: number;
  /** The first finding of any kind (nudge or stronger). */
  first?: Moment;
  /** The first warn or stronger. */
  warn?: Moment;
  /** The first block or halt. */
  stop?: Moment;
  /** The first finding of the strongest action seen. */
  strongest?: Moment;
}

/** A configuration of the engine or a peer rule, run over every trajectory. */
export interface Detector {
  name: string;
  kind: 'config' | 'peer';
  /** The config file (configurations only). */
  file?: string;
  /** Whether it can stop a run (block or halt): its decisive action is then a stop, else a warn. */
  hardStop: boolean;
  run(run: Run): RunOutcome;
}

/** `count` of `of` runs, and the share (null when `of` is 0). */
export interface Share {
  count: number;
  of: number;
  share: number | null;
}

/** Runs counted by the axis (or peer rule) and by the tool of the call that decided. */
export interface Tally {
  axes: Record<string, number>;
  tools: Record<string, number>;
}

/** The figures of one detector over one group of runs. */
export interface DetectorFigures {
  stuck: {
    /** Any finding (nudge, warn, block, halt). */
    flagged: Share;
    stopped: Share;
    /** Median of (first finding's call - onset) over the stuck runs flagged that have an onset. */
    firstFindingVsOnset: number | null;
    /** Median of (first stop's call - onset) over the stuck runs stopped that have an onset. */
    firstStopVsOnset: number | null;
  };
  healthy: { warned: Share; stopped: Share; warnedBy: Tally; stoppedBy: Tally };
  resolved: { warned: Share; stopped: Share };
  limitNorep: { flagged: Share; stopped: Share };
}

/** The figures of every detector over one group (`all`, or one source). */
export interface GroupFigures {
  group: string;
  runs: { total: number; stuck: number; healthy: number; resolved: number; limitNorep: number };
  detectors: Record<string, DetectorFigures>;
}

/** A run named by `--examples`, with the call that decided (or, for a run missed, its strongest). */
export interface Example {
  scope: string;
  source?: string;
  calls: number;
  onset?: number;
  moment?: Moment;
  /** The deciding call (or the onset call of a stuck run missed): tool and arguments, cut short. */
  call?: { tool: string; args: string };
}

/** `--examples` of one detector: healthy runs it broke and stuck runs it missed. */
export interface DetectorExamples {
  /** `stop` when the detector can stop runs, else `warn`. */
  decisive: 'stop' | 'warn';
  /** Healthy runs that got the decisive action. */
  broken: Example[];
  /** Stuck runs that did not. */
  missed: Example[];
}

/** What `loopguard eval --json` prints. */
export interface EvalReport {
  inputs: {
    files: number;
    /** Runs read from the inputs. */
    runs: number;
    /** Runs evaluated: labelled, read (or labelled with no calls). */
    evaluated: number;
    /** Runs read that have no label (left out). */
    unlabelled: number;
    /** Labelled runs found in no input (left out; a label with 0 calls counts as a run instead). */
    notFound: number;
    /** Bad files, lines and labels reported (each left out). */
    bad: number;
  };
  detectors: { name: string; kind: 'config' | 'peer'; file?: string; hardStop: boolean }[];
  groups: GroupFigures[];
  examples?: Record<string, DetectorExamples>;
  /** `--sweep`: the hard-stop thresholds swept, per configuration swept. */
  sweeps?: SweepReport[];
}
