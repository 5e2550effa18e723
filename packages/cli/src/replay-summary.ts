import { printable } from './printable.js';
import type { ReplayRecord } from './types.js';

const TOP = 5;

/** Running totals of a replay, for the human-readable summary. */
export class ReplaySummary {
  calls = 0;
  nudges = 0;
  warns = 0;
  blocks = 0;
  halts = 0;
  longestStreak = 0;
  longestStreakSignature = '';
  readonly #signatures = new Map<string, { calls: number; worst: string }>();
  readonly #haltedScopes = new Set<string>();

  add(record: ReplayRecord): void {
    this.calls += 1;
    if (record.action === 'nudge') this.nudges += 1;
    if (record.action === 'warn') this.warns += 1;
    if (record.action === 'block') this.blocks += 1;
    if (record.action === 'halt') this.halts += 1;
    if (record.halt) this.#haltedScopes.add(record.scope);
    if (record.streak > this.longestStreak) {
      this.longestStreak = record.streak;
      this.longestStreakSignature = record.signature;
    }
    const entry = this.#signatures.get(record.signature) ?? { calls: 0, worst: 'allow' };
    entry.calls += 1;
    if (RANK[record.action] > RANK[entry.worst as keyof typeof RANK]) entry.worst = record.action;
    this.#signatures.set(record.signature, entry);
  }

  /** The summary as text lines. */
  lines(): string[] {
    const top = [...this.#signatures.entries()]
      .sort((a, b) => b[1].calls - a[1].calls)
      .slice(0, TOP);
    return [
      `calls ${this.calls}   nudges ${this.nudges}   warns ${this.warns}   blocks ${this.blocks}   halts ${this.halts}`,
      `halted scopes ${this.#haltedScopes.size}   longest streak ${this.longestStreak}${
        this.longestStreak > 0 ? ` (${printable(this.longestStreakSignature)})` : ''
      }`,
      'top signatures:',
      ...top.map(
        ([sig, e]) => `  ${String(e.calls).padStart(6)}  ${printable(sig)}  worst: ${e.worst}`,
      ),
    ];
  }
}

const RANK = { allow: 0, nudge: 1, warn: 2, block: 3, halt: 4 } as const;

const COLUMNS = [
  '#',
  'scope',
  'tool',
  'signature',
  'before',
  'action',
  'axes',
  'streak',
  'count',
  'halt',
];
const WIDTHS = [6, 14, 18, 36, 6, 6, 26, 6, 6, 4];

function cell(raw: string, width: number): string {
  const value = printable(raw);
  return value.length > width ? `${value.slice(0, width - 1)}…` : value.padEnd(width);
}

/** The table header line. */
export function tableHeader(): string {
  return COLUMNS.map((c, i) => cell(c, WIDTHS[i] ?? 8)).join(' ');
}

/** One table row for a replayed call. */
export function tableRow(r: ReplayRecord): string {
  const values = [
    String(r.i),
    r.scope,
    r.tool,
    r.signature,
    r.before,
    r.action,
    r.axes.join(','),
    String(r.streak),
    String(r.count),
    r.halt ? 'yes' : '',
  ];
  return values
    .map((v, i) => cell(v, WIDTHS[i] ?? 8))
    .join(' ')
    .trimEnd();
}
