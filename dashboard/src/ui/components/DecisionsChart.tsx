import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { LoopAction, Series } from '../../api/types.js';
import { fmtBucket, fmtInt } from '../format.js';
import { gridSeries, type SeriesGrid } from '../series-grid.js';

/** Stack order, bottom first: loop actions stay visible near the axis. */
const STACK: LoopAction[] = ['halt', 'block', 'warn', 'nudge', 'allow'];

function color(action: LoopAction): string {
  return (
    getComputedStyle(document.documentElement).getPropertyValue(`--${action}`).trim() || '#888'
  );
}

/** Cumulative sums per stacked action; raw values kept for the legend. */
function stack(grid: SeriesGrid, actions: LoopAction[]) {
  const xs = grid.points.map((p) => p.t / 1000);
  const raw = actions.map((a) => grid.points.map((p) => p[a]));
  const sums = raw.map((_, i) =>
    grid.points.map((_p, j) => raw.slice(0, i + 1).reduce((s, r) => s + (r[j] ?? 0), 0)),
  );
  return { xs, raw, sums };
}

function options(
  actions: LoopAction[],
  raw: { current: number[][] },
  bounds: { current: SeriesGrid | undefined },
  width: number,
): uPlot.Options {
  // a bar covers its bucket [t, t + bucket): drawn from t rightwards, the axis spanning whole
  // buckets, so the first and last bars are not cut in half and one point is not lost in years
  const bars = uPlot.paths.bars?.({ size: [0.85, 48], align: 1 });
  // uPlot draws series in order: the tallest (top of stack) first, each overdrawn by those below.
  const drawn = actions.map((action, i) => ({ action, i })).reverse();
  return {
    width,
    height: 220,
    legend: { live: true },
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    scales: {
      x: {
        time: true,
        range: (_u, min, max) => {
          const b = bounds.current;
          return b ? [b.from / 1000, b.to / 1000] : [min, max];
        },
      },
      y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.08)] },
    },
    axes: [
      { stroke: '#5f6368', grid: { stroke: '#eceff1' }, ticks: { stroke: '#dadce0' } },
      {
        stroke: '#5f6368',
        grid: { stroke: '#eceff1' },
        ticks: { stroke: '#dadce0' },
        size: 48,
        values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? fmtInt(v) : '')),
      },
    ],
    series: [
      {},
      ...drawn.map(({ action, i }) => ({
        label: action,
        fill: color(action),
        stroke: color(action),
        width: 0,
        paths: bars,
        points: { show: false },
        value: (_u: uPlot, _v: number | null, _si: number, idx: number | null) =>
          idx === null ? '–' : fmtInt(raw.current[i]?.[idx] ?? 0),
      })),
    ],
  };
}

/** Decisions per time bucket, stacked by action (uPlot bars). */
export function DecisionsChart({ series }: { series: Series }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const raw = useRef<number[][]>([]);
  const bounds = useRef<SeriesGrid | undefined>(undefined);
  const hideAllow = useSignal(false);
  const actions = hideAllow.value ? STACK.filter((a) => a !== 'allow') : STACK;
  const grid = gridSeries(series);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    bounds.current = grid;
    if (!grid) {
      plot.current?.destroy();
      plot.current = null;
      return;
    }
    const stacked = stack(grid, actions);
    raw.current = stacked.raw;
    const { xs, sums } = stacked;
    const data: uPlot.AlignedData = [xs, ...sums.slice().reverse()];
    if (plot.current && plot.current.series.length === actions.length + 1) {
      plot.current.setData(data);
      return;
    }
    plot.current?.destroy();
    plot.current = new uPlot(options(actions, raw, bounds, el.clientWidth || 800), data, el);
  });

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const observer = new ResizeObserver(() => {
      plot.current?.setSize({ width: el.clientWidth, height: 220 });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);

  return (
    <section class="panel" aria-label="Decisions over time">
      <header class="panel-head">
        <h2>Decisions over time</h2>
        <span class="muted small">per {fmtBucket(series.bucketMs)}</span>
        <label class="check">
          <input
            type="checkbox"
            checked={hideAllow.value}
            onChange={(e) => {
              hideAllow.value = e.currentTarget.checked;
            }}
          />
          hide allow
        </label>
      </header>
      {!grid && <p class="muted small">No decisions in this range.</p>}
      <div ref={host} class="chart" data-testid="decisions-chart" />
    </section>
  );
}
