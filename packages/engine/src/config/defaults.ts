import type { ResolvedConfig } from '../types.js';

/** Default nudge thresholds: the 3rd, 5th and 8th identical call in a row. */
export const DEFAULT_NUDGE_THRESHOLDS: readonly number[] = Object.freeze([3, 5, 8]);

/** Tools never nudged, whatever `nudge.exclude` says (contract section 5). */
export const NEVER_NUDGED: readonly string[] = Object.freeze(['todo_write', 'todo_read']);

/** Environment variables read for nudge thresholds, first found wins. */
export const NUDGE_THRESHOLD_ENV = [
  'LOOPGUARD_NUDGE_THRESHOLDS',
  'CYBERINE_REPEAT_TOOL_THRESHOLDS',
];

/**
 * Programs whose non-zero exit is an answer when a shell tool runs them: searches with no match,
 * comparisons of different inputs, linters and type checkers reporting findings.
 */
export const ANSWER_EXITS: readonly string[] = Object.freeze([
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'diff',
  'cmp',
  'test',
  '[',
  'pylint',
  'flake8',
  'pyflakes',
  'pycodestyle',
  'pydocstyle',
  'ruff',
  'mypy',
  'eslint',
  'shellcheck',
]);

/** The defaults of contract section 5. */
export function defaultConfig(): ResolvedConfig {
  return {
    mode: 'enforce',
    nudge: {
      thresholds: undefined,
      fallbackThresholds: [3, 5, 8],
      exclude: [...NEVER_NUDGED],
    },
    guardrails: {
      warnings: true,
      hardStop: false,
      warnAfter: {
        repetition: 5,
        exactFailure: 3,
        sameToolFailure: 3,
        noProgress: 3,
        cycle: 3,
        poll: 10,
        sameError: 3,
      },
      hardStopAfter: {
        repetition: 8,
        exactFailure: 5,
        sameToolFailure: 10,
        noProgress: 4,
        cycle: 5,
        poll: 20,
        sameError: 4,
      },
      repetitionCount: 'seen-result',
      answerExits: [...ANSWER_EXITS],
    },
    tools: {},
    scopes: { max: 10_000, idleMs: 60 * 60 * 1000 },
  };
}
