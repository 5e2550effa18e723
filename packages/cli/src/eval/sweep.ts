import { type Axis, type AxisThresholds, createEngine } from '@loopguard/engine';
import { Replayer } from '../replay.js';
import type { EngineProblem } from './engine-detector.js';
import { Recording } from './engine-detector.js';
import { isStop } from './outcome.js';
import type { Label, Run, Share } from './types.js';

/** A setting of `guardrails.hardStopAfter`: every axis's stop threshold. */
export type StopThresholds = Required<AxisThresholds>;

/** One setting of the sweep and the runs it stops. */
export interface SweepPoint {
  hardStopAfter: StopThresholds;
  stuck: Share;
  healthy: Share;
  resolved: Share;
}

/** What `--sweep` found for one configuration. */
export interface SweepReport {
  /** The configuration swept (its name in the report). */
  name: string;
  /** Settings of `guardrails.hardStopAfter` tried. */
  settings: number;
  /** The configuration's own thresholds, with hard stop on. */
  configured: SweepPoint;
  /**
   * The settings no other setting beats (more stuck runs stopped, or fewer healthy or resolved
   * runs stopped, and no worse on the rest), by healthy runs stopped; of equals, the one nearest
   * the configured thresholds.
   */
  frontier: SweepPoint[];
}

type Key = keyof StopThresholds;

/** The axes swept and the thresholds tried on each (besides the configured one). */
const GRID: readonly { axis: Axis; key: Key; values: readonly number[] }[] = [
  { axis: 'repetition', key: 'repetition', values: [5, 6, 8, 10, 12, 16] },
  { axis: 'exact_failure', key: 'exactFailure', values: [3, 4, 5, 6, 8, 10, 12, 14] },
  { axis: 'same_tool_failure', key: 'sameToolFailure', values: [5, 8, 10, 12, 16, 20, 25] },
  { axis: 'no_progress', key: 'noProgress', values: [3, 4, 5, 6, 8] },
  { axis: 'cycle', key: 'cycle', values: [3, 4, 5, 6, 8] },
  { axis: 'poll', key: 'poll', values: [10, 15, 20, 30] },
  { axis: 'same_error', key: 'sameError', values: [3, 4, 5, 6, 8] },
];

/** A stop threshold no run reaches: the replay records every finding and stops nowhere. */
const OUT_OF_REACH = 1_000_000_000;

/** Where a run first reaches each threshold tried on each axis. */
interface RunReach {
  label: Label;
  /** Per axis (GRID order), per threshold tried: the first call reaching it, or Infinity. */
  at: Float64Array[];
  /** The first stop the config makes whatever the global thresholds (a tool's own), or Infinity. */
  fixed: number;
}

/** The thresholds tried on each axis: the grid's and the configured one. */
function axisValues(configured: StopThresholds): number[][] {
  return GRID.map(({ key, values }) =>
    [...new Set([...values, configured[key]])].sort((a, b) => a - b),
  );
}

/** Replays `run` once with every global stop out of reach and notes where each threshold is met. */
function reachOf(
  engine: Recording,
  ownStops: ReadonlyMap<string, ReadonlySet<Axis>>,
  run: Run,
  label: Label,
  values: number[][],
  problem: EngineProblem,
): RunReach {
  const at = values.map((v) => new Float64Array(v.length).fill(Number.POSITIVE_INFINITY));
  let fixed = Number.POSITIVE_INFINITY;
  const replayer = new Replayer(engine);
  for (const step of run.steps) {
    let record: ReturnType<Replayer['play']>;
    try {
      record = replayer.play(step.line);
    } catch (error) {
      engine.take();
      problem(step.where, `the engine failed on this call: ${(error as Error).message}`);
      continue;
    }
    if (record === undefined) continue;
    const decision = engine.take();
    if (decision === undefined || decision.action === 'allow') continue;
    const own = ownStops.get(record.tool);
    for (const f of decision.findings) {
      const a = GRID.findIndex((g) => g.axis === f.axis);
      if (a < 0 || own?.has(f.axis)) continue;
      const axisAt = at[a]!;
      const tried = values[a]!;
      for (let t = 0; t < tried.length && tried[t]! <= f.count; t++) {
        if (axisAt[t] === Number.POSITIVE_INFINITY) axisAt[t] = record.i;
      }
    }
    if (isStop(decision.action)) {
      fixed = record.i;
      break;
    }
  }
  engine.resetScope(run.scope);
  return { label, at, fixed };
}

const shareOf = (count: number, of: number): Share => ({
  count,
  of,
  share: of === 0 ? null : count / of,
});

/**
 * Sweeps `guardrails.hardStopAfter` of the config in `file` (hard stop on) over a grid of
 * thresholds per axis: each labelled run is replayed once, and every setting's stops are read off
 * where the run first reaches each threshold (a run ends at its first stop, as in `eval`).
 */
export function sweepConfig(
  name: string,
  file: string,
  runs: readonly { run: Run; label: Label }[],
  diagnostic: (message: string) => void,
  problem: EngineProblem,
): SweepReport {
  const config = createEngine({ configFile: file, onDiagnostic: () => undefined }).config;
  const hardStopAfter = { ...config.guardrails.hardStopAfter };
  const thresholds = (n: number) =>
    Object.fromEntries(GRID.map((g) => [g.key, n])) as StopThresholds;
  // every count is reported (warn from 1) and no global threshold stops: a tool's own stop
  // thresholds stay, and stop where they would
  const everyCount = thresholds(1);
  const ownStops = new Map<string, Set<Axis>>();
  for (const [tool, policy] of Object.entries(config.tools)) {
    const own = GRID.filter((g) => policy.hardStopAfter?.[g.key] !== undefined).map((g) => g.axis);
    if (own.length > 0) ownStops.set(tool, new Set(own));
  }
  const engine = new Recording(
    createEngine({
      configFile: file,
      onDiagnostic: diagnostic,
      guardrails: {
        hardStop: true,
        warnings: true,
        warnAfter: everyCount,
        hardStopAfter: thresholds(OUT_OF_REACH),
      },
      tools: Object.fromEntries(
        Object.keys(config.tools).map((tool) => [tool, { warnAfter: everyCount }]),
      ),
    }),
  );
  const values = axisValues(hardStopAfter);
  const judged = runs.filter(({ label }) => label.label !== 'limit_norep');
  const reach = judged.map(({ run, label }) =>
    reachOf(engine, ownStops, run, label, values, problem),
  );
  const totals = {
    stuck: judged.filter((r) => r.label.label === 'stuck').length,
    healthy: judged.filter((r) => r.label.label === 'healthy').length,
    resolved: judged.filter((r) => r.label.label === 'healthy' && r.label.resolved).length,
  };
  // only runs some setting stops matter
  const live = reach.filter(
    (r) => r.fixed < Number.POSITIVE_INFINITY || r.at.some((a) => a[0]! < Number.POSITIVE_INFINITY),
  );
  const kinds = live.map((r) => (r.label.label === 'stuck' ? 0 : r.label.resolved ? 2 : 1));
  const configuredIdx = values.map((v, a) => v.indexOf(hardStopAfter[GRID[a]!.key]));
  const distance = (idx: readonly number[]) =>
    idx.reduce(
      (d, t, a) => d + (t === configuredIdx[a] ? 0 : 100 + Math.abs(t - configuredIdx[a]!)),
      0,
    );

  const count = (idx: readonly number[]) => {
    let stuck = 0;
    let healthy = 0;
    let resolved = 0;
    for (let r = 0; r < live.length; r++) {
      const run = live[r]!;
      let stops = run.fixed < Number.POSITIVE_INFINITY;
      for (let a = 0; !stops && a < idx.length; a++) stops = run.at[a]![idx[a]!]! < Infinity;
      if (!stops) continue;
      const kind = kinds[r]!;
      if (kind === 0) stuck++;
      else {
        healthy++;
        if (kind === 2) resolved++;
      }
    }
    return { stuck, healthy, resolved };
  };

  // per (healthy, resolved) stopped: the setting stopping the most stuck runs, nearest the config
  const best = new Map<
    string,
    { idx: number[]; stuck: number; healthy: number; resolved: number; d: number }
  >();
  const idx = values.map(() => 0);
  let settings = 0;
  const visit = (a: number) => {
    if (a === values.length) {
      settings++;
      const c = count(idx);
      const key = `${c.healthy}/${c.resolved}`;
      const d = distance(idx);
      const held = best.get(key);
      if (!held || c.stuck > held.stuck || (c.stuck === held.stuck && d < held.d)) {
        best.set(key, { idx: [...idx], ...c, d });
      }
      return;
    }
    for (let t = 0; t < values[a]!.length; t++) {
      idx[a] = t;
      visit(a + 1);
    }
  };
  visit(0);

  const point = (
    at: readonly number[],
    c: { stuck: number; healthy: number; resolved: number },
  ): SweepPoint => ({
    hardStopAfter: Object.fromEntries(
      GRID.map((g, a) => [g.key, values[a]![at[a]!]!]),
    ) as StopThresholds,
    stuck: shareOf(c.stuck, totals.stuck),
    healthy: shareOf(c.healthy, totals.healthy),
    resolved: shareOf(c.resolved, totals.resolved),
  });
  const candidates = [...best.values()];
  const frontier = candidates
    .filter(
      (p) =>
        !candidates.some(
          (q) =>
            q !== p &&
            q.stuck >= p.stuck &&
            q.healthy <= p.healthy &&
            q.resolved <= p.resolved &&
            (q.stuck > p.stuck || q.healthy < p.healthy || q.resolved < p.resolved),
        ),
    )
    .sort((p, q) => p.healthy - q.healthy || p.resolved - q.resolved)
    .map((p) => point(p.idx, p));
  return {
    name,
    settings,
    configured: point(configuredIdx, count(configuredIdx)),
    frontier,
  };
}
