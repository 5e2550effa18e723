import type { LoopAction, TraceSpan } from '../../api/types.js';
import { fmtCount, fmtMs, plural } from '../format.js';
import { apiUrl } from '../models/api.js';
import { useResource } from '../models/use-resource.js';
import { runTree, spanTokens, type TreeNode } from '../run-tree.js';
import { ActionBadge } from './ActionBadge.js';
import { ARGS_ATTRIBUTE, CallName } from './CallName.js';
import { ErrorNotice } from './ErrorNotice.js';

/** Most traces of a session whose trees are shown. */
export const MAX_TREES = 10;

const ACTIONS: readonly string[] = ['allow', 'nudge', 'warn', 'block', 'halt'];
const isAction = (v: string | undefined): v is LoopAction => v !== undefined && ACTIONS.includes(v);

function Node({ node, current }: { node: TreeNode; current: ReadonlySet<string> }) {
  const { span, kind } = node;
  const a = span.attributes;
  const tokens = spanTokens(span);
  const action = a['loopguard.action'];
  const outcome = a['loopguard.run.outcome'];
  return (
    <li
      class={`tree-node tree-${kind}${current.has(span.spanId) ? ' current' : ''}`}
      data-testid={`tree-${kind}`}
    >
      <span class="tree-label">
        {kind === 'run' && <strong>{span.name}</strong>}
        {kind === 'tool' && (
          <CallName
            tool={a['gen_ai.tool.name'] ?? span.name.replace(/^execute_tool /, '')}
            signature={a['loopguard.signature'] ?? ''}
            args={a[ARGS_ATTRIBUTE]}
          />
        )}
        {kind === 'model' && (
          <span>
            {span.name}
            <span class="muted small"> model step</span>
          </span>
        )}
        {kind === 'other' && <span>{span.name}</span>}
        {outcome && (
          <span class={`tree-outcome outcome-${outcome}`} data-testid="run-outcome">
            {outcome}
          </span>
        )}
        {isAction(action) && action !== 'allow' && <ActionBadge action={action} />}
        <span class="muted small">
          {' '}
          {fmtMs(span.durationMs)}
          {tokens !== undefined && ` · ${fmtCount(tokens)} tokens`}
        </span>
      </span>
      {node.children.length > 0 && (
        <ol class="tree">
          {node.children.map((c) => (
            <Node key={c.span.spanId} node={c} current={current} />
          ))}
        </ol>
      )}
    </li>
  );
}

function TraceTree({ traceId, current }: { traceId: string; current: ReadonlySet<string> }) {
  const trace = useResource<TraceSpan[]>(() => apiUrl(`traces/${encodeURIComponent(traceId)}`), {
    live: false,
    debounceMs: 0,
  });
  const s = trace.state.value;
  if (s.status === 'error') return <ErrorNotice error={s.error} />;
  if (!s.data) return <p class="muted small">Loading…</p>;
  const roots = runTree(s.data);
  return (
    <ol class="tree" data-testid="run-tree">
      {roots.map((n) => (
        <Node key={n.span.spanId} node={n} current={current} />
      ))}
    </ol>
  );
}

/**
 * The run tree of a session: for each trace its calls belong to (the first MAX_TREES), the run
 * span, its tool spans and model steps as the trace nests them. Text only.
 */
export function RunTree({ calls }: { calls: readonly { traceId: string; spanId: string }[] }) {
  const traces = [...new Set(calls.map((c) => c.traceId))];
  const current = new Set(calls.map((c) => c.spanId));
  return (
    <section class="panel run-trees" aria-label="Run tree">
      <header class="panel-head">
        <h2>Run tree</h2>
        <span class="muted small">
          {plural(traces.length, 'trace')}
          {traces.length > MAX_TREES ? `, the first ${MAX_TREES} shown` : ''} · run span, tool calls
          and model steps as the trace nests them
        </span>
      </header>
      {traces.slice(0, MAX_TREES).map((t) => (
        <TraceTree key={t} traceId={t} current={current} />
      ))}
    </section>
  );
}
