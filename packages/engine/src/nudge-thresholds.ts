import {
  MIN_NUDGE_THRESHOLD,
  NEVER_NUDGED,
  NUDGE_THRESHOLD_ENV,
  parseThresholds,
} from './config/index.js';
import type { EffectivePolicy } from './state.js';
import { ToolNames } from './tool-names.js';
import type { ResolvedConfig } from './types.js';

/** Nudge thresholds in force, re-read from the environment at call time (cached by raw value). */
export class NudgeThresholds {
  #raw: string | undefined;
  #parsed: readonly number[] = [];
  readonly #reported = new Set<string>();
  /** Tools never nudged: the built-in ones and `nudge.exclude`. */
  readonly #excluded: ToolNames;

  constructor(
    private readonly config: ResolvedConfig,
    private readonly env: Record<string, string | undefined>,
    private readonly diagnostic: (message: string) => void,
  ) {
    this.#excluded = new ToolNames([...NEVER_NUDGED, ...config.nudge.exclude]);
  }

  /**
   * The thresholds a streak of `streak` calls of `tool` is nudged at, or undefined when it cannot
   * be: a first call, a poller, a tool with `nudge: false` or an excluded one. The environment is
   * read only for a repeat: reading process.env costs about 0.4 µs a name, and no threshold is
   * below 2.
   */
  forStreak(tool: string, streak: number, policy: EffectivePolicy): readonly number[] | undefined {
    return streak >= MIN_NUDGE_THRESHOLD &&
      policy.kind !== 'poller' &&
      policy.nudge &&
      !this.#excluded.has(tool)
      ? this.current()
      : undefined;
  }

  /** The thresholds in force now: the config object's, else the environment's, else the fallback. */
  current(): readonly number[] {
    const fixed = this.config.nudge.thresholds;
    if (fixed !== undefined) return fixed;
    let raw: string | undefined;
    let name = '';
    for (const candidate of NUDGE_THRESHOLD_ENV) {
      raw = this.env[candidate];
      name = candidate;
      if (raw !== undefined) break;
    }
    if (raw === undefined) return this.config.nudge.fallbackThresholds;
    if (raw === this.#raw) return this.#parsed;
    const parsed = parseThresholds(raw);
    if (parsed.ok) this.#parsed = parsed.thresholds;
    else {
      this.#parsed = this.config.nudge.fallbackThresholds;
      if (!this.#reported.has(raw)) {
        this.#reported.add(raw);
        this.diagnostic(
          `${name}=${JSON.stringify(raw)}: ${parsed.reason}; using ${this.#parsed.join(',')}`,
        );
      }
    }
    this.#raw = raw;
    return this.#parsed;
  }
}
