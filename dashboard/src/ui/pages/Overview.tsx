import type { Hotspot, LoopSpend, Page, Series, Summary } from '../../api/types.js';
import { CallName } from '../components/CallName.js';
import { DecisionsChart } from '../components/DecisionsChart.js';
import { DetectionNotice } from '../components/DetectionNotice.js';
import { EmptyState } from '../components/EmptyState.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { SpendText, spendTokens } from '../components/SpendText.js';
import { SummaryCards } from '../components/SummaryCards.js';
import { fmtCount, fmtInt, plural } from '../format.js';
import { apiUrl } from '../models/api.js';
import { filterParams, hasFilters } from '../models/filters.js';
import { linkTo } from '../models/route.js';
import { useResource } from '../models/use-resource.js';

/** Totals, the decisions chart and the top hotspots of the range. */
export function Overview() {
  const summary = useResource<Summary>(() => apiUrl('summary', filterParams()));
  const series = useResource<Series>(() => apiUrl('series', filterParams()));
  const top = useResource<Page<Hotspot>>(() =>
    apiUrl('hotspots', { ...filterParams(), sort: 'calls', order: 'desc', limit: 5 }),
  );
  const spend = useResource<LoopSpend>(() => apiUrl('spend', filterParams()));
  const s = summary.state.value;
  const spent = spend.state.value.data;

  return (
    <div class="page">
      <h1 class="page-title">Overview</h1>
      {s.status === 'error' && <ErrorNotice error={s.error} />}
      {s.data === undefined && s.status === 'loading' && <p class="muted">Loading…</p>}
      {s.data && s.data.calls === 0 && <EmptyState filtered={hasFilters()} />}
      {s.data && s.data.calls > 0 && (
        <>
          <SummaryCards summary={s.data} />
          {spent && <SpentInLoops spend={spent} />}
          {series.state.value.data && <DecisionsChart series={series.state.value.data} />}
          <TopHotspots rows={top.state.value.data?.rows ?? []} />
          <DetectionNotice />
        </>
      )}
    </div>
  );
}

/** Tokens (and money, with a price table) of the model steps behind flagged calls. */
function SpentInLoops({ spend }: { spend: LoopSpend }) {
  return (
    <section class="panel spent" aria-label="Spent in loops">
      <header class="panel-head">
        <h2>Spent in loops</h2>
        <span class="muted small">
          tokens of the model steps that made flagged calls (any finding), each step once
        </span>
      </header>
      <p class="spent-total">
        <SpendText spend={spend.total} testId="spent-total" />
        {spendTokens(spend.total) === 0 && (
          <span class="muted small">
            {' '}
            (no token usage recorded on the flagged calls: the instrumentation writes it on tool
            spans as gen_ai.usage.*)
          </span>
        )}
        {!spend.priced && spendTokens(spend.total) > 0 && (
          <span class="muted small">
            {' '}
            · start the dashboard with <code>--prices FILE</code> to see it in USD
          </span>
        )}
      </p>
    </section>
  );
}

function TopHotspots({ rows }: { rows: Hotspot[] }) {
  if (rows.length === 0) return null;
  return (
    <section class="panel" aria-label="Top repeated calls">
      <header class="panel-head">
        <h2>Most repeated calls</h2>
        <a href={linkTo({ page: 'hotspots' })}>all hotspots →</a>
      </header>
      <ol class="top-list">
        {rows.map((h) => (
          <li key={`${h.service}|${h.signature}`}>
            <a href={linkTo({ page: 'sessions', signature: h.signature }, { service: h.service })}>
              <CallName tool={h.tool} signature={h.signature} args={h.sampleArgs} />
            </a>
            <span class="muted">{h.service}</span>
            <span class="num" title={plural(h.calls, 'call')}>
              {plural(h.calls, 'call', fmtCount)}
            </span>
            <span class="num" title={`streak ${fmtInt(h.longestStreak)}`}>
              streak {fmtCount(h.longestStreak)}
            </span>
            <span class="num" title={plural(h.sessions, 'session')}>
              {plural(h.sessions, 'session', fmtCount)}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
