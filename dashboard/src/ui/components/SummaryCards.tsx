import type { Summary } from '../../store/types.js';
import { fmtInt, fmtPct } from '../format.js';

interface Card {
  key: keyof Summary;
  label: string;
  tone?: string;
  hint: string;
}

const CARDS: Card[] = [
  { key: 'calls', label: 'Tool calls', hint: 'execute_tool spans in range' },
  { key: 'sessions', label: 'Sessions', hint: 'distinct loopguard scopes' },
  { key: 'loopShare', label: 'Loop share', hint: 'calls with an action other than allow' },
  { key: 'nudges', label: 'Nudges', tone: 'nudge', hint: 'advisory reminders appended' },
  { key: 'warns', label: 'Warns', tone: 'warn', hint: 'guardrail warnings' },
  { key: 'blocks', label: 'Blocks', tone: 'block', hint: 'calls blocked before they ran' },
  { key: 'halts', label: 'Halts', tone: 'halt', hint: 'runs halted' },
  { key: 'spans', label: 'Spans', hint: 'all spans stored in range' },
];

/** The totals of the range as a row of cards. */
export function SummaryCards({ summary }: { summary: Summary }) {
  return (
    <dl class="cards">
      {CARDS.map((c) => (
        <div key={c.key} class={`card${c.tone ? ` tone-${c.tone}` : ''}`} title={c.hint}>
          <dt>{c.label}</dt>
          <dd data-testid={`summary-${c.key}`}>
            {c.key === 'loopShare' ? fmtPct(summary.loopShare) : fmtInt(summary[c.key])}
          </dd>
        </div>
      ))}
    </dl>
  );
}
