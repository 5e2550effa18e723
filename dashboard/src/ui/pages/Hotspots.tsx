import type { Hotspot, LoopSpend, Page, TokenSpend } from '../../api/types.js';
import { countOf } from '../components/ActionCount.js';
import { CallName, CaptureHint } from '../components/CallName.js';
import { Clipped, ShortTime } from '../components/CellText.js';
import { type Column, DataTable } from '../components/DataTable.js';
import { EmptyState } from '../components/EmptyState.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { Pager } from '../components/Pager.js';
import { ShadowCounts, shadowColumns } from '../components/ShadowCounts.js';
import { SpendText } from '../components/SpendText.js';
import { fmtAgo, fmtInt, fmtSeconds, fmtTime } from '../format.js';
import { apiUrl } from '../models/api.js';
import { filterParams, hasFilters } from '../models/filters.js';
import { linkTo, navigate } from '../models/route.js';
import { createTableState, PAGE_SIZE } from '../models/table.js';
import { usePageInRange } from '../models/use-page-in-range.js';
import { useResource } from '../models/use-resource.js';
import { bindTable } from '../models/view-state.js';

type Key = keyof Hotspot;

/** Tokens in loops of the hotspots on the page, by service, tool and signature (from /api/spend). */
let spentBy = new Map<string, TokenSpend>();
const spendKey = (h: { service: string; tool: string; signature: string }) =>
  JSON.stringify([h.service, h.tool, h.signature]);

const table = createTableState<Key>('calls');

const COLUMNS: Column<Hotspot, Key>[] = [
  { key: 'tool', label: 'Tool', render: (h) => <Clipped text={h.tool} /> },
  {
    key: 'signature',
    label: 'Call',
    render: (h) => (
      <a href={linkTo({ page: 'sessions', signature: h.signature }, { service: h.service })}>
        <CallName tool={h.tool} signature={h.signature} args={h.sampleArgs} />
      </a>
    ),
  },
  { key: 'service', label: 'Service', render: (h) => <Clipped text={h.service} /> },
  { key: 'calls', label: 'Calls', numeric: true, render: (h) => fmtInt(h.calls) },
  {
    key: 'longestStreak',
    label: 'Longest streak',
    numeric: true,
    render: (h) => fmtInt(h.longestStreak),
  },
  { key: 'nudges', label: 'Nudges', numeric: true, render: countOf('nudges') },
  { key: 'warns', label: 'Warns', numeric: true, render: countOf('warns') },
  { key: 'blocks', label: 'Blocks', numeric: true, render: countOf('blocks') },
  {
    key: 'halts',
    label: 'Halts',
    numeric: true,
    title: 'Halt decisions (the run was stopped); each finding counts, as on the Overview',
    render: countOf('halts'),
  },
  {
    key: 'shadow',
    label: 'Shadow',
    sortable: false,
    title: 'Decisions recorded in shadow mode: what loopguard would have done, never applied',
    render: (h) => <ShadowCounts shadow={h.shadow} />,
  },
  { key: 'sessions', label: 'Sessions', numeric: true, render: (h) => fmtInt(h.sessions) },
  {
    key: 'sampleArgs',
    label: 'Tokens in loops',
    numeric: true,
    sortable: false,
    title: "Tokens of the model steps that made this signature's flagged calls, each step once",
    render: (h) => {
      const t = spentBy.get(spendKey(h));
      return t ? <SpendText spend={t} /> : <span class="muted">–</span>;
    },
  },
  {
    key: 'repeatSeconds',
    label: 'Repeat time',
    numeric: true,
    title: 'Time spent in calls that repeated an earlier identical call',
    render: (h) => fmtSeconds(h.repeatSeconds),
  },
  {
    key: 'firstSeen',
    label: 'First seen',
    render: (h) => <ShortTime ms={h.firstSeen} />,
  },
  {
    key: 'lastSeen',
    label: 'Last seen',
    render: (h) => <span title={fmtTime(h.lastSeen)}>{fmtAgo(h.lastSeen)}</span>,
  },
];
bindTable(
  'hotspots',
  table,
  'calls',
  COLUMNS.filter((c) => c.sortable !== false).map((c) => c.key),
);

const hotspotsUrl = () => apiUrl('hotspots', table.params());

/** Repeated call signatures, aggregated; a row opens the sessions that made those calls. */
export function Hotspots() {
  const page = useResource<Page<Hotspot>>(hotspotsUrl);
  const spend = useResource<LoopSpend>(() => apiUrl('spend', filterParams()));
  spentBy = new Map((spend.state.value.data?.hotspots ?? []).map((h) => [spendKey(h), h]));
  const s = page.state.value;
  usePageInRange(table.offset, s, hotspotsUrl(), PAGE_SIZE);
  return (
    <div class="page">
      <h1 class="page-title">Hotspots</h1>
      <p class="muted lead">
        Tool calls repeated with identical arguments. Click a row to see the sessions that made it.
      </p>
      {s.status === 'error' && <ErrorNotice error={s.error} />}
      {!s.data && s.status === 'loading' && <p class="muted">Loading…</p>}
      {s.data && s.data.total === 0 && <EmptyState filtered={hasFilters()} />}
      {s.data && s.data.total > 0 && (
        <>
          <DataTable
            label="Hotspots"
            columns={shadowColumns(COLUMNS, s.data.rows)}
            rows={s.data.rows}
            rowKey={(h) => `${h.service}|${h.signature}`}
            table={table}
            busy={s.status === 'loading'}
            onRowClick={(h) =>
              navigate({ page: 'sessions', signature: h.signature }, { service: h.service })
            }
          />
          <Pager offset={table.offset} limit={PAGE_SIZE} total={s.data.total} noun="signature" />
          {!s.data.rows.some((h) => h.sampleArgs) && <CaptureHint />}
        </>
      )}
    </div>
  );
}
