import type {
  Detector,
  DetectorFigures,
  GroupFigures,
  Label,
  Moment,
  Run,
  RunOutcome,
  Share,
  Tally,
} from './types.js';

/** A labelled run and what each detector found in it (same order as the detectors). */
export interface Evaluated {
  run: Run;
  label: Label;
  outcomes: RunOutcome[];
}

/** The overall group's name. */
export const ALL = 'all';

/**
 * The figures of each detector over all runs and, when the labels name more than one source,
 * over each source (sorted by name).
 */
export function groupFigures(evaluated: readonly Evaluated[], detectors: readonly Detector[]) {
  const sources = [...new Set(evaluated.map((e) => e.label.source ?? ''))].sort();
  const groups: GroupFigures[] = [figuresOf(ALL, evaluated, detectors)];
  if (sources.length > 1) {
    for (const source of sources) {
      const runs = evaluated.filter((e) => (e.label.source ?? '') === source);
      groups.push(figuresOf(source === '' ? '(no source)' : source, runs, detectors));
    }
  }
  return groups;
}

function figuresOf(
  group: string,
  evaluated: readonly Evaluated[],
  detectors: readonly Detector[],
): GroupFigures {
  const stuck = evaluated.filter((e) => e.label.label === 'stuck');
  const healthy = evaluated.filter((e) => e.label.label === 'healthy');
  const resolved = healthy.filter((e) => e.label.resolved);
  const limitNorep = evaluated.filter((e) => e.label.label === 'limit_norep');
  const figures: Record<string, DetectorFigures> = {};
  for (const [d, detector] of detectors.entries()) {
    const of = (e: Evaluated) => e.outcomes[d]!;
    const flagged = (e: Evaluated) => of(e).first !== undefined;
    const warned = (e: Evaluated) => of(e).warn !== undefined;
    const stopped = (e: Evaluated) => of(e).stop !== undefined;
    figures[detector.name] = {
      stuck: {
        flagged: share(stuck, flagged),
        stopped: share(stuck, stopped),
        firstFindingVsOnset: medianVsOnset(stuck, (e) => of(e).first),
        firstStopVsOnset: medianVsOnset(stuck, (e) => of(e).stop),
      },
      healthy: {
        warned: share(healthy, warned),
        stopped: share(healthy, stopped),
        warnedBy: tally(healthy.map((e) => of(e).warn)),
        stoppedBy: tally(healthy.map((e) => of(e).stop)),
      },
      resolved: { warned: share(resolved, warned), stopped: share(resolved, stopped) },
      limitNorep: { flagged: share(limitNorep, flagged), stopped: share(limitNorep, stopped) },
    };
  }
  return {
    group,
    runs: {
      total: evaluated.length,
      stuck: stuck.length,
      healthy: healthy.length,
      resolved: resolved.length,
      limitNorep: limitNorep.length,
    },
    detectors: figures,
  };
}

function share<T>(runs: readonly T[], test: (run: T) => boolean): Share {
  const count = runs.filter(test).length;
  return { count, of: runs.length, share: runs.length === 0 ? null : count / runs.length };
}

/** The median of (the moment's call - onset) over the runs with both. */
function medianVsOnset(
  runs: readonly Evaluated[],
  moment: (e: Evaluated) => Moment | undefined,
): number | null {
  const offsets: number[] = [];
  for (const e of runs) {
    const at = moment(e);
    if (at !== undefined && e.label.onset !== undefined) offsets.push(at.call - e.label.onset);
  }
  return median(offsets);
}

/** The median of a list (the mean of the middle two for an even count), null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function tally(moments: readonly (Moment | undefined)[]): Tally {
  const axes = new Map<string, number>();
  const tools = new Map<string, number>();
  for (const m of moments) {
    if (m === undefined) continue;
    axes.set(m.axis, (axes.get(m.axis) ?? 0) + 1);
    tools.set(m.tool, (tools.get(m.tool) ?? 0) + 1);
  }
  return { axes: sortedCounts(axes), tools: sortedCounts(tools) };
}

/** The counts, most first (then by name), as an object in that order. */
function sortedCounts(counts: Map<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
  );
}
