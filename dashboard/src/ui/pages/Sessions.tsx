import type { Page, SessionRow } from '../../api/types.js';
import { ActionBadge } from '../components/ActionBadge.js';
import { countOf } from '../components/ActionCount.js';
import { Clipped, ShortTime } from '../components/CellText.js';
import { type Column, DataTable } from '../components/DataTable.js';
import { EmptyState } from '../components/EmptyState.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { Pager } from '../components/Pager.js';
import { ShadowBadge, ShadowCounts, shadowColumns } from '../components/ShadowCounts.js';
import { fmtInt, fmtMs } from '../format.js';
import { apiUrl } from '../models/api.js';
import { hasFilters } from '../models/filters.js';
import { linkTo, navigate, route } from '../models/route.js';
import { createTableState, PAGE_SIZE } from '../models/table.js';
import { usePageInRange } from '../models/use-page-in-range.js';
import { useResource } from '../models/use-resource.js';
import { bindTable } from '../models/view-state.js';
import { sessionFromList } from '../routes.js';

type Key = keyof SessionRow | 'duration';

const table = createTableState<Key>('end');

const signature = () => (route.value.page === 'sessions' ? route.value.signature : undefined);

function Badges({ s }: { s: SessionRow }) {
  return (
    <span class="badges">
      {s.halted && <ActionBadge action="halt" label="halted" />}
      {s.blocks > 0 && <ActionBadge action="block" label="blocked" />}
      {s.warns > 0 && <ActionBadge action="warn" label="warned" />}
      {s.nudges > 0 && <ActionBadge action="nudge" label="nudged" />}
      <ShadowBadge worst={s.shadow.worstAction} halted={s.shadow.halted} />
      {s.worstAction === 'allow' && s.shadow.worstAction === 'allow' && (
        <ActionBadge action="allow" label="clean" />
      )}
    </span>
  );
}

/**
 * "by halt" / "by block" / "no": whether the run was stopped (`halted`) and by which decision; a
 * run that shadow mode would have stopped says so ("no, would have by block").
 */
function Halted({ s }: { s: SessionRow }) {
  if (!s.halted && s.shadow.halted) {
    const by = s.shadow.worstAction === 'halt' ? 'halt' : 'block';
    return (
      <span class="muted" data-testid="would-have-halted">
        no (would have, by {by})
      </span>
    );
  }
  if (!s.halted) return <span class="muted">no</span>;
  const by = s.worstAction === 'halt' ? 'halt' : 'block';
  return <span class={`count tone-${by}`}>by {by}</span>;
}

const COLUMNS: Column<SessionRow, Key>[] = [
  {
    key: 'scope',
    label: 'Session (scope)',
    render: (s) => (
      <a href={linkTo(sessionFromList(s.scope, signature()))} class="scope-link">
        <Clipped text={s.scope} wide />
      </a>
    ),
  },
  { key: 'service', label: 'Service', render: (s) => <Clipped text={s.service} /> },
  { key: 'worstAction', label: 'Status', render: (s) => <Badges s={s} /> },
  {
    key: 'halted',
    label: 'Halted',
    title:
      'Stopped by an enforced block or halt decision (halts refuse every further call); shadow decisions stop nothing',
    render: (s) => <Halted s={s} />,
  },
  { key: 'calls', label: 'Calls', numeric: true, render: (s) => fmtInt(s.calls) },
  {
    key: 'longestStreak',
    label: 'Longest streak',
    numeric: true,
    render: (s) => fmtInt(s.longestStreak),
  },
  {
    key: 'nudges',
    label: 'Nudges',
    numeric: true,
    render: countOf('nudges'),
  },
  {
    key: 'warns',
    label: 'Warns',
    numeric: true,
    render: countOf('warns'),
  },
  {
    key: 'blocks',
    label: 'Blocks',
    numeric: true,
    render: countOf('blocks'),
  },
  {
    key: 'shadow',
    label: 'Shadow',
    sortable: false,
    title: 'Decisions recorded in shadow mode: what loopguard would have done, never applied',
    render: (s) => <ShadowCounts shadow={s.shadow} />,
  },
  {
    key: 'start',
    label: 'Started',
    render: (s) => <ShortTime ms={s.start} />,
  },
  {
    key: 'duration',
    label: 'Duration',
    numeric: true,
    sortable: false,
    render: (s) => fmtMs(s.end - s.start),
  },
  {
    key: 'end',
    label: 'Last call',
    render: (s) => <ShortTime ms={s.end} />,
  },
];
bindTable(
  'sessions',
  table,
  'end',
  COLUMNS.filter((c) => c.sortable !== false).map((c) => c.key),
);

const sessionsUrl = () => apiUrl('sessions', table.params({ signature: signature() }));

/** Agent runs (scopes) with their loop badges; optionally only those that made one signature. */
export function Sessions() {
  const page = useResource<Page<SessionRow>>(sessionsUrl);
  const s = page.state.value;
  usePageInRange(table.offset, s, sessionsUrl(), PAGE_SIZE);
  const sig = signature();
  return (
    <div class="page">
      <h1 class="page-title">Sessions</h1>
      {sig && (
        <p class="chip-row">
          <span class="chip">
            signature <code>{sig}</code>
            <a
              href={linkTo({ page: 'sessions' })}
              class="chip-x"
              aria-label="Remove signature filter"
            >
              ×
            </a>
          </span>
        </p>
      )}
      {s.status === 'error' && <ErrorNotice error={s.error} />}
      {!s.data && s.status === 'loading' && <p class="muted">Loading…</p>}
      {s.data && s.data.total === 0 && <EmptyState filtered={hasFilters() || Boolean(sig)} />}
      {s.data && s.data.total > 0 && (
        <>
          <DataTable
            label="Sessions"
            columns={shadowColumns(COLUMNS, s.data.rows)}
            rows={s.data.rows}
            rowKey={(r) => `${r.service}|${r.scope}`}
            table={table}
            busy={s.status === 'loading'}
            onRowClick={(r) => navigate(sessionFromList(r.scope, sig))}
          />
          <Pager offset={table.offset} limit={PAGE_SIZE} total={s.data.total} noun="session" />
        </>
      )}
    </div>
  );
}
