import type { TraceSpan } from '../api/types.js';

/** A span of a trace with its children, for the run tree. */
export interface TreeNode {
  span: TraceSpan;
  /** What the span is: an agent run, a tool call, a model step, or another span. */
  kind: 'run' | 'tool' | 'model' | 'other';
  children: TreeNode[];
}

const MODEL_OPERATIONS = new Set([
  'chat',
  'text_completion',
  'generate_content',
  'embeddings',
  'create_agent',
]);

/** The kind of a span by its gen_ai.operation.name (or its name when that is absent). */
export function spanKind(span: TraceSpan): TreeNode['kind'] {
  const op = span.attributes['gen_ai.operation.name'] ?? '';
  if (op === 'invoke_agent' || (op === '' && span.name.startsWith('invoke_agent'))) return 'run';
  if (op === 'execute_tool' || span.attributes['loopguard.signature'] !== undefined) return 'tool';
  if (MODEL_OPERATIONS.has(op) && op !== 'create_agent') return 'model';
  return 'other';
}

/**
 * The spans of a trace as trees by parent span id (a span whose parent is not stored is a root),
 * children in the order the API gives them (start time, then sequence).
 */
export function runTree(spans: readonly TraceSpan[]): TreeNode[] {
  const nodes = new Map<string, TreeNode>();
  for (const span of spans) nodes.set(span.spanId, { span, kind: spanKind(span), children: [] });
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.span.parentSpanId ? nodes.get(node.span.parentSpanId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** Input plus output tokens a span carries (gen_ai.usage.*), or undefined when it has none. */
export function spanTokens(span: TraceSpan): number | undefined {
  const n = (k: string) => {
    const v = span.attributes[k];
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  const input = n('gen_ai.usage.input_tokens');
  const output = n('gen_ai.usage.output_tokens');
  return input === undefined && output === undefined ? undefined : (input ?? 0) + (output ?? 0);
}
