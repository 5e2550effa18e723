import { NUDGE_THRESHOLD_ENV } from './config/defaults.js';
import { parseThresholds } from './config/thresholds.js';
import type { ResolvedConfig } from './types.js';

/** Nudge thresholds in force, re-read from the environment at call time (cached by raw value). */
export class NudgeThresholds {
  #raw: string | undefined;
  #parsed: readonly number[] = [];
  readonly #reported = new Set<string>();

  constructor(
    private readonly config: ResolvedConfig,
    private readonly env: Record<string, string | undefined>,
    private readonly diagnostic: (message: string) => void,
  ) {}

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
