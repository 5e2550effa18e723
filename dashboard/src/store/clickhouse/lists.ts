import type { LoopAction, Page, PageRequest, QueryFilter, SessionRow } from '../../api/types.js';
import { normalizePage, SESSION_SORTS, sessionRow, toNumber } from '../common/index.js';
import type { SqlParams } from './executor.js';
import { FINDINGS_SQL } from './hotspots.js';
import { rollupView } from './schema.js';
import { rawConditions, rollupRows, SEARCH_SQL, type Source, where, wholeMinutes } from './sql.js';

/** Aggregate columns of a session over raw derived rows. */
export const RAW_SESSION_COLUMNS = `LoopScope AS scope, min(ServiceName) AS service,
  max(ConversationId) AS conversationId, count() AS calls, max(Streak) AS longestStreak,
  maxIf(ActionRank, NOT Shadow) AS worstRank, worstRank >= 3 AS halted,
  maxIf(ActionRank, Shadow) AS shadowRank, ${FINDINGS_SQL},
  min(StartMs) AS start, max(StartMs + intDiv(Duration, 1000000)) AS end`;

const ROLLUP_SESSION_COLUMNS = `LoopScope AS scope, min(ServiceName) AS service,
  max(ConversationId) AS conversationId, sum(Calls) AS calls, max(LongestStreak) AS longestStreak,
  max(EnforcedRank) AS worstRank, worstRank >= 3 AS halted, max(ShadowRank) AS shadowRank,
  sum(NudgeFindings) AS nudges, sum(WarnFindings) AS warns, sum(BlockFindings) AS blocks,
  sum(ShadowNudges) AS shadowNudges, sum(ShadowWarns) AS shadowWarns,
  sum(ShadowBlocks) AS shadowBlocks, sum(ShadowHalts) AS shadowHalts,
  min(Start) AS start, max(End) AS end`;

/** `<calls of the action> > 0` over session rollup rows, each column wrapped in `agg`. */
function actionCalls(action: LoopAction, agg: string): string {
  const col = { nudge: 'Nudges', warn: 'Warns', block: 'Blocks', halt: 'Halts' } as const;
  const c = (name: string) => `${agg}(${name})`;
  return action === 'allow'
    ? `${c('Calls')} - ${c('Nudges')} - ${c('Warns')} - ${c('Blocks')} - ${c('Halts')} > 0`
    : `${c(col[action])} > 0`;
}

/**
 * Distinct sessions of the calls a filter selects, from the session rollup (whole minutes) and
 * loopguard_calls (partial ones); undefined when the rollup cannot answer (search, signature,
 * no whole minute).
 */
export async function rollupSessionCount(
  src: Source,
  filter: QueryFilter,
): Promise<number | undefined> {
  const span =
    src.rollups && !filter.search && !filter.signature ? wholeMinutes(filter) : undefined;
  if (!span) return undefined;
  const params: SqlParams = {};
  const { rows } = rollupRows(
    rollupView(src.views, 'loopguard_sessions_1m'),
    filter,
    span,
    params,
    ['tool'],
  );
  // a row is one scope's calls of one tool in one minute: it has the action's calls or not
  const conds = ["LoopScope != ''", ...(filter.action ? [actionCalls(filter.action, '')] : [])];
  const [row] = await src.exec.query(
    `SELECT uniqExact(LoopScope) AS n FROM ${rows} ${where(conds)}`,
    params,
  );
  return toNumber(row?.n);
}

/** The FROM/GROUP/HAVING of the sessions query, raw or from the minute rollup. */
export function sessionsSql(
  src: Source,
  filter: QueryFilter,
  params: SqlParams,
): { body: string; columns: string; rollup: boolean } {
  const having: string[] = [];
  const span =
    src.rollups && !filter.search && !filter.signature ? wholeMinutes(filter) : undefined;
  if (span) {
    const { rows } = rollupRows(
      rollupView(src.views, 'loopguard_sessions_1m'),
      filter,
      span,
      params,
      ['tool'],
    );
    if (filter.action) having.push(actionCalls(filter.action, 'sum'));
    return {
      rollup: true,
      columns: ROLLUP_SESSION_COLUMNS,
      body: `${rows} WHERE LoopScope != '' GROUP BY LoopScope
        ${having.length ? `HAVING ${having.join(' AND ')}` : ''}`,
    };
  }
  const conds = rawConditions(filter, params, { skip: ['action', 'signature', 'search'] });
  // one call must match every condition (not each condition some call of the session)
  const call: string[] = [];
  if (filter.action) {
    call.push('LoopAction = {action:String}');
    params.action = filter.action;
  }
  if (filter.signature) {
    call.push('Signature = {signature:String}');
    params.signature = filter.signature;
  }
  if (filter.search) {
    call.push(`(${SEARCH_SQL})`);
    params.search = filter.search.toLowerCase();
  }
  const scoped = [...conds, "LoopScope != ''"];
  if (call.length && src.rollups) {
    // loopguard_calls is narrow enough to read twice: the sessions with such a call first,
    // then only their calls grouped by scope
    scoped.push(`LoopScope IN (SELECT LoopScope FROM ${src.calls} ${where([...scoped, ...call])})`);
  } else if (call.length) having.push(`countIf(${call.join(' AND ')}) > 0`);
  return {
    rollup: false,
    columns: RAW_SESSION_COLUMNS,
    body: `${src.calls} ${where(scoped)} GROUP BY LoopScope
      ${having.length ? `HAVING ${having.join(' AND ')}` : ''}`,
  };
}

/**
 * Sessions (scopes). Time, service and tool narrow the calls aggregated; action, signature and
 * search select the sessions that contain a matching call.
 */
export async function querySessions(
  src: Source,
  filter: QueryFilter,
  page?: PageRequest,
): Promise<Page<SessionRow>> {
  const params: SqlParams = {};
  const q = sessionsSql(src, filter, params);
  const p = normalizePage(page, SESSION_SORTS, 'end');
  const sort = p.sort === 'worstAction' ? 'worstRank' : p.sort;
  const rows = await src.exec.query(
    `SELECT ${q.columns}, count() OVER () AS total FROM ${q.body}
    ORDER BY ${sort} ${p.order}, scope LIMIT ${p.limit} OFFSET ${p.offset}`,
    params,
  );
  let total = rows.length ? toNumber(rows[0]?.total) : 0;
  if (!rows.length && p.offset > 0) {
    const [c] = await src.exec.query(`SELECT count() AS n FROM (SELECT 1 FROM ${q.body})`, params);
    total = toNumber(c?.n);
  }
  return { total, rows: rows.map(sessionRow) };
}
