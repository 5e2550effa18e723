import { printable } from '../printable.js';
import type { StopThresholds, SweepPoint, SweepReport } from './sweep.js';
import type {
  DetectorExamples,
  DetectorFigures,
  EvalReport,
  Example,
  GroupFigures,
  Share,
  Tally,
} from './types.js';

const TALLY_SHOWN = 6;

type Row = [string, (f: DetectorFigures) => string];

const ROWS: Row[] = [
  ['stuck runs with a finding', (f) => cell(f.stuck.flagged)],
  ['stuck runs stopped (block/halt)', (f) => cell(f.stuck.stopped)],
  ['first finding - onset, median (calls)', (f) => offset(f.stuck.firstFindingVsOnset)],
  ['first stop - onset, median (calls)', (f) => offset(f.stuck.firstStopVsOnset)],
  ['healthy runs warned or worse', (f) => cell(f.healthy.warned)],
  ['healthy runs stopped (block/halt)', (f) => cell(f.healthy.stopped)],
  ['resolved runs warned or worse', (f) => cell(f.resolved.warned)],
  ['resolved runs stopped (block/halt)', (f) => cell(f.resolved.stopped)],
  ['limit_norep runs with a finding', (f) => cell(f.limitNorep.flagged)],
  ['limit_norep runs stopped (block/halt)', (f) => cell(f.limitNorep.stopped)],
];

function cell(s: Share): string {
  return s.share === null ? '-' : `${s.share.toFixed(3)} (${s.count}/${s.of})`;
}

function offset(value: number | null): string {
  if (value === null) return '-';
  return value > 0 ? `+${value}` : String(value);
}

/** A markdown table with its columns padded to one width, readable as text too. */
function markdown(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)];
}

function tallyText(tally: Tally): string {
  const list = (counts: Record<string, number>) => {
    const entries = Object.entries(counts);
    const shown = entries.slice(0, TALLY_SHOWN).map(([name, n]) => `${printable(name)} ${n}`);
    return `${shown.join(', ')}${entries.length > TALLY_SHOWN ? ', …' : ''}`;
  };
  return `${list(tally.axes)}; tools: ${list(tally.tools)}`;
}

function groupText(group: GroupFigures, names: string[]): string[] {
  const r = group.runs;
  const lines = [
    `## ${printable(group.group)}: ${r.total} runs (${r.stuck} stuck, ${r.healthy} healthy of which ${r.resolved} resolved, ${r.limitNorep} limit_norep)`,
    '',
    ...markdown(
      ['', ...names.map(printable)],
      ROWS.map(([title, value]) => [title, ...names.map((n) => value(group.detectors[n]!))]),
    ),
  ];
  for (const [what, pick] of [
    ['warned, by axis (or rule) of the first warn', (f: DetectorFigures) => f.healthy.warnedBy],
    ['stopped, by axis (or rule) of the stop', (f: DetectorFigures) => f.healthy.stoppedBy],
  ] as const) {
    const behind = names.filter((n) => Object.keys(pick(group.detectors[n]!).axes).length > 0);
    if (behind.length === 0) continue;
    lines.push('', `Healthy runs ${what}:`);
    for (const n of behind)
      lines.push(`- ${printable(n)}: ${tallyText(pick(group.detectors[n]!))}`);
  }
  return lines;
}

/** The human-readable report: a table per group (all, then each source), detectors side by side. */
export function reportText(report: EvalReport): string {
  const names = report.detectors.map((d) => d.name);
  const i = report.inputs;
  const lines = [
    `loopguard eval: ${i.evaluated} labelled runs evaluated (${i.runs} runs read from ${i.files} file(s); ` +
      `${i.unlabelled} without a label and ${i.notFound} labelled but not found left out)`,
    `configurations: ${report.detectors
      .map((d) =>
        d.kind === 'peer'
          ? `${printable(d.name)} (peer rule, stops)`
          : `${printable(d.name)} (${printable(d.file ?? '')}, hard stop ${d.hardStop ? 'on' : 'off'})`,
      )
      .join('; ')}`,
  ];
  for (const group of report.groups) lines.push('', ...groupText(group, names));
  return `${lines.join('\n')}\n`;
}

function exampleText(e: Example, kind: 'broken' | 'missed'): string {
  const facts = [`${e.calls} calls`, ...(e.onset === undefined ? [] : [`onset ${e.onset}`])];
  const head = `- ${printable(e.scope)} (${facts.join(', ')})`;
  const m = e.moment;
  const found =
    m === undefined
      ? 'no finding'
      : `${kind === 'missed' ? 'strongest: ' : ''}${m.action} ${printable(m.axis)}${
          m.count === undefined ? '' : ` (${m.count})`
        } at call ${m.call} (${printable(m.where)})`;
  const call =
    e.call === undefined
      ? ''
      : `; ${kind === 'missed' ? 'onset call' : 'call'}: ${printable(e.call.tool)} ${printable(e.call.args)}`;
  return `${head}: ${found}${call}`;
}

/** `--examples`: per detector, the healthy runs it broke and the stuck runs it missed. */
export function examplesText(examples: Record<string, DetectorExamples>): string {
  const lines: string[] = [];
  for (const [name, { decisive, broken, missed }] of Object.entries(examples)) {
    const action = decisive === 'stop' ? 'stopped' : 'warned';
    lines.push('', `## ${printable(name)}: healthy runs ${action} (${broken.length})`, '');
    lines.push(...broken.map((e) => exampleText(e, 'broken')));
    lines.push('', `## ${printable(name)}: stuck runs not ${action} (${missed.length})`, '');
    lines.push(...missed.map((e) => exampleText(e, 'missed')));
  }
  return `${lines.join('\n')}\n`;
}

/** Frontier rows shown above the configured thresholds' count of healthy runs stopped. */
const ABOVE_CONFIGURED = 3;

function thresholdsText(t: StopThresholds, from?: StopThresholds): string {
  const keys = Object.keys(t) as (keyof StopThresholds)[];
  const changed = from === undefined ? keys : keys.filter((k) => t[k] !== from[k]);
  return changed.length === 0 ? 'as configured' : changed.map((k) => `${k} ${t[k]}`).join(', ');
}

/**
 * `--sweep`: per configuration swept, the settings of `guardrails.hardStopAfter` no other beats,
 * up to a few above the configured thresholds' count of healthy runs stopped, each with what it
 * changes, and the configured thresholds' own row.
 */
export function sweepText(sweeps: readonly SweepReport[]): string {
  const lines: string[] = [];
  for (const s of sweeps) {
    const c = s.configured;
    const row = (p: SweepPoint, what: string) => [
      cell(p.healthy),
      cell(p.resolved),
      cell(p.stuck),
      what,
    ];
    const below = s.frontier.filter((p) => p.healthy.count <= c.healthy.count);
    const above = s.frontier
      .filter((p) => p.healthy.count > c.healthy.count)
      .slice(0, ABOVE_CONFIGURED);
    lines.push(
      '',
      `## ${printable(s.name)}: hard-stop thresholds swept (${s.settings} settings of guardrails.hardStopAfter, hard stop on)`,
      '',
      'The settings no other beats: the most stuck runs stopped for each count of healthy and resolved runs stopped.',
      '',
      ...markdown(
        [
          'healthy runs stopped',
          'resolved runs stopped',
          'stuck runs stopped',
          'guardrails.hardStopAfter',
        ],
        [
          ...[...below, ...above].map((p) =>
            row(p, thresholdsText(p.hardStopAfter, c.hardStopAfter)),
          ),
          row(c, `configured: ${thresholdsText(c.hardStopAfter)}`),
        ],
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
