/** What the engine tells the caller to do with one tool call, weakest first. */
export type Action = 'allow' | 'nudge' | 'warn' | 'block' | 'halt';

/** Every action except `allow`: the actions a finding can carry. */
export type FindingAction = Exclude<Action, 'allow'>;

/**
 * How decisions are applied: `enforce` (default) appends notices and refuses or halts calls;
 * `shadow` computes and records every decision the same way, but the host applies none of them.
 */
export type Mode = 'enforce' | 'shadow';

/** The axes along which repetition is measured (contract section 5). */
export type Axis =
  | 'streak'
  | 'repetition'
  | 'exact_failure'
  | 'same_tool_failure'
  | 'no_progress'
  | 'cycle'
  | 'poll'
  | 'same_error';

/** How a tool behaves, which decides the axes it is measured on. */
export type ToolKind = 'idempotent' | 'mutating' | 'poller' | 'pager';

/**
 * Which successful calls of a signature the repetition axis counts: `every` (reference 002: every
 * non-failed call), `same-result` (the count restarts when the result changes, as Hermes' code
 * does) or `seen-result` (a success counts when it returns a result the signature returned
 * before; the first success counts too).
 */
export type RepetitionCount = 'every' | 'same-result' | 'seen-result';

/** One threshold crossed on one axis by one call. */
export interface Finding {
  axis: Axis;
  action: FindingAction;
  /** The value that crossed the threshold (streak length, repeat count, failures, laps). */
  count: number;
  threshold: number;
  /** Nudge level, 1 for the first configured threshold; only on `streak` findings. */
  level?: number;
  message: string;
}

interface DecisionBase {
  scope: string;
  tool: string;
  /** `<tool>:<first 16 hex digits of argsHash>` */
  signature: string;
  argsHash: string;
  /** Consecutive attempts with this signature in the scope, this one included. */
  streak: number;
  /** Calls of this signature in the scope, this one included. */
  count: number;
  findings: Finding[];
  /** Nudge level when a streak nudge fired with this call. */
  level?: number;
  /**
   * Set (`true`) by an engine in shadow mode: record the decision, do not apply it (append no
   * notice, run a blocked call, throw no halt). The decision is otherwise what enforce mode gives.
   */
  shadow?: true;
}

/** The call may go ahead (before) or nothing was found (after). */
export interface AllowDecision extends DecisionBase {
  action: 'allow';
}

/** Advisory: the call ran; `message` should be appended to its result. */
export interface NoticeDecision extends DecisionBase {
  action: 'nudge' | 'warn';
  axis: Axis;
  message: string;
}

/** Stop: before a call, do not run it; after a call, the scope is halted. */
export interface StopDecision extends DecisionBase {
  action: 'block' | 'halt';
  axis: Axis;
  message: string;
}

/** What `beforeCall` answers: run the call, or refuse it. */
export type BeforeDecision = AllowDecision | (StopDecision & { action: 'block' });

/** The engine's answer for one call, discriminated by `action`. */
export type Decision = AllowDecision | NoticeDecision | StopDecision;

/** A tool call as the engine sees it before it runs. */
export interface CallInput {
  /** State key: one agent run or conversation. Defaults to `"default"`. */
  scope?: string;
  tool: string;
  /** Arguments as an object, or as the JSON string a model emitted. */
  args?: unknown;
}

/** A tool call as the engine sees it after it ran. */
export interface AfterCallInput extends CallInput {
  /** Whether the call succeeded. Defaults to true. */
  ok?: boolean;
  /** What the tool returned; hashed for the no-progress, cycle and poll axes. */
  result?: unknown;
}

/** Per-axis thresholds; every field optional (defaults in contract section 5). */
export interface AxisThresholds {
  repetition?: number;
  exactFailure?: number;
  sameToolFailure?: number;
  noProgress?: number;
  cycle?: number;
  poll?: number;
  /** Failures of one tool with the same error text (digits aside), any arguments. */
  sameError?: number;
}

/** How one tool is treated. */
export interface ToolPolicy {
  kind?: ToolKind;
  /** Top-level argument keys removed before hashing (e.g. `timeout`, `request_id`). */
  ignoreArgs?: string[];
  /** Failures of this tool never reach `same_tool_failure`. */
  failureTolerant?: boolean;
  /** `false`: never nudged on the streak axis. */
  nudge?: boolean;
  warnAfter?: AxisThresholds;
  hardStopAfter?: AxisThresholds;
}

/** The native configuration shape; every field optional. */
export interface LoopguardConfig {
  /** `enforce` (default) or `shadow`: decisions recorded, none applied. */
  mode?: Mode;
  nudge?: {
    /** Ascending positive integers, or a string like `"3,5,8"`; `[]` or `""` disables. */
    thresholds?: number[] | string;
    /** Tools never nudged (default `todo_write`, `todo_read`). */
    exclude?: string[];
  };
  guardrails?: {
    warnings?: boolean;
    hardStop?: boolean;
    warnAfter?: AxisThresholds;
    hardStopAfter?: AxisThresholds;
    /** How the repetition axis counts successes (default `seen-result`; `every` is reference 002). */
    repetitionCount?: RepetitionCount;
    /**
     * Programs whose non-zero exit run from a shell tool is an answer, not a failure (`grep` with
     * no match, `diff` of different files, linters); `[]` counts every non-zero exit as a failure.
     */
    answerExits?: string[];
  };
  tools?: Record<string, ToolPolicy>;
  scopes?: {
    /** Most scopes kept; the least recently used is evicted first. */
    max?: number;
    /** A scope idle this long is dropped. */
    idleMs?: number;
  };
}

/** The configuration after merging and validation: every field present. */
export interface ResolvedConfig {
  mode: Mode;
  nudge: {
    /** Set by the config object; `undefined`: read from the environment at call time. */
    thresholds: number[] | undefined;
    /** Used when neither the config object nor the environment sets thresholds (file, else default). */
    fallbackThresholds: number[];
    exclude: string[];
  };
  guardrails: {
    warnings: boolean;
    hardStop: boolean;
    warnAfter: Required<AxisThresholds>;
    hardStopAfter: Required<AxisThresholds>;
    repetitionCount: RepetitionCount;
    answerExits: string[];
  };
  tools: Record<string, ToolPolicy>;
  scopes: { max: number; idleMs: number };
}

/** Options of `createEngine`: a config object plus where else to read configuration. */
export interface EngineOptions extends LoopguardConfig {
  /** Environment to read `LOOPGUARD_*` from; defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** A config file path, or `false` to read none; default: discovered (see `loadConfig`). */
  configFile?: string | false;
  /** Directory for config file discovery; defaults to `process.cwd()`. */
  cwd?: string;
  /** Receives one-line diagnostics (bad config values); defaults to `console.warn`. */
  onDiagnostic?: (message: string) => void;
  /** Clock in milliseconds, for idle expiry; defaults to `Date.now`. */
  now?: () => number;
}

/** The repetition engine: one instance serves any number of scopes. */
export interface Engine {
  /** Before running a call: `allow`, or `block` (do not run it; do not call `afterCall`). */
  beforeCall(call: CallInput): BeforeDecision;
  /** After the call ran: allow, nudge, warn, block or halt. */
  afterCall(call: AfterCallInput): Decision;
  /**
   * The finding `beforeCall` would refuse this call with now (a `block`), without counting it as
   * an attempt or changing anything; undefined when it would be allowed. For asking before a call
   * is put to a human for approval. Optional for engines written by hand.
   */
  refusal?(call: CallInput): Finding | undefined;
  /**
   * A call `beforeCall` allowed will not run after all (approval denied, run cancelled): forget
   * it, so no later `afterCall` is paired with it. Its attempt still counts for the streak.
   */
  cancelCall(call: CallInput): void;
  /**
   * A call `beforeCall` allowed was cut short by the framework's control flow and will run again
   * (a LangGraph interrupt, resumed later): forget it as if it had never been attempted, so the
   * run that completes counts once for the streak and the count.
   */
  withdrawCall(call: CallInput): void;
  /** A new user turn: forget everything of that scope. */
  resetScope(scope?: string): void;
  /** The first block or halt recorded in the scope, if any. */
  haltDecision(scope?: string): Finding | undefined;
  /** The merged configuration in force. */
  readonly config: ResolvedConfig;
  /** Live scopes held in memory. */
  scopeCount(): number;
}

/** One problem found in a configuration: where, what value, and why. */
export interface ConfigIssue {
  path: string;
  value: unknown;
  message: string;
}

/** A validated configuration: what was valid, and every problem found. */
export interface ConfigCheck {
  config: LoopguardConfig;
  issues: ConfigIssue[];
}

/** The resolved configuration, with the file used (if any) and every problem met on the way. */
export interface LoadedConfig {
  config: ResolvedConfig;
  file: string | undefined;
  issues: ConfigIssue[];
}

/** The outcome of parsing a nudge threshold list. */
export type ThresholdParse = { ok: true; thresholds: number[] } | { ok: false; reason: string };
