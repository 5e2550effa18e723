import type { Summary } from '../../api/types.js';
import { fmtCount, fmtInt, fmtPct } from '../format.js';
import { anyShadow, ShadowCounts } from './ShadowCounts.js';

interface Card {
  key: Exclude<keyof Summary, 'shadow'>;
  label: string;
  tone?: string;
  hint: string;
}

const CARDS: Card[] = [
  { key: 'calls', label: 'Tool calls', hint: 'execute_tool spans in range' },
  { key: 'sessions', label: 'Sessions', hint: 'distinct loopguard scopes' },
  { key: 'loopShare', label: 'Loop share', hint: 'calls with an action other than allow' },
  { key: 'nudges', label: 'Nudges', tone: 'nudge', hint: 'nudge findings (advisory reminders)' },
  { key: 'warns', label: 'Warns', tone: 'warn', hint: 'warn findings (guardrail warnings)' },
  { key: 'blocks', label: 'Blocks', tone: 'block', hint: 'block findings (calls refused)' },
  { key: 'halts', label: 'Halts', tone: 'halt', hint: 'halt findings (halt decisions)' },
  {
    key: 'haltedSessions',
    label: 'Halted sessions',
    tone: 'halt',
    hint: 'sessions with an enforced block or halt (the list\'s "halted" badge)',
  },
  { key: 'spans', label: 'Spans', hint: 'all spans stored in range' },
];

/**
 * The totals of the range as a row of cards; a count of a million or more is shortened ("123.5B")
 * to fit its card, the exact number in the card's title. The cards count enforced decisions;
 * shadow-mode ones follow on a line of their own when there are any.
 */
export function SummaryCards({ summary }: { summary: Summary }) {
  const { shadow } = summary;
  return (
    <>
      <Cards summary={summary} />
      {anyShadow([summary]) && (
        <p class="shadow-summary" data-testid="summary-shadow">
          Shadow mode (recorded, not applied): <ShadowCounts shadow={shadow} />
          {shadow.haltedSessions > 0 &&
            ` · ${fmtInt(shadow.haltedSessions)} session${shadow.haltedSessions === 1 ? '' : 's'} would have been halted`}
        </p>
      )}
    </>
  );
}

function Cards({ summary }: { summary: Summary }) {
  return (
    <dl class="cards">
      {CARDS.map((c) => {
        const n = summary[c.key];
        const percent = c.key === 'loopShare';
        return (
          <div
            key={c.key}
            class={`card${c.tone ? ` tone-${c.tone}` : ''}`}
            title={percent ? c.hint : `${fmtInt(n)} ${c.hint}`}
          >
            <dt>{c.label}</dt>
            <dd data-testid={`summary-${c.key}`}>{percent ? fmtPct(n) : fmtCount(n)}</dd>
          </div>
        );
      })}
    </dl>
  );
}
