import { describe, expect, it } from 'vitest';
import type { TraceSpan } from '../../src/api/types.js';
import { runTree, spanKind, spanTokens } from '../../src/ui/run-tree.js';

const span = (id: string, parent: string, name: string, attributes: Record<string, string>) =>
  ({
    traceId: 't'.repeat(32),
    spanId: id,
    parentSpanId: parent,
    name,
    kind: 'Internal',
    serviceName: 's',
    start: 0,
    durationMs: 1,
    statusCode: 'Unset',
    statusMessage: '',
    attributes,
    events: [],
  }) satisfies TraceSpan;

describe('runTree', () => {
  it('nests tool spans and model steps under their run span, orphans as roots', () => {
    const spans = [
      span('r', '', 'invoke_agent demo', {
        'gen_ai.operation.name': 'invoke_agent',
        'loopguard.run.outcome': 'halted',
      }),
      span('m', 'r', 'chat gpt-x', {
        'gen_ai.operation.name': 'chat',
        'gen_ai.usage.input_tokens': '120',
        'gen_ai.usage.output_tokens': '8',
      }),
      span('a', 'r', 'execute_tool grep', { 'gen_ai.operation.name': 'execute_tool' }),
      span('b', 'gone', 'execute_tool read', { 'loopguard.signature': 'read:00' }),
    ];
    const roots = runTree(spans);
    expect(roots.map((n) => [n.span.spanId, n.kind])).toEqual([
      ['r', 'run'],
      ['b', 'tool'],
    ]);
    expect(roots[0]?.children.map((n) => [n.span.spanId, n.kind])).toEqual([
      ['m', 'model'],
      ['a', 'tool'],
    ]);
    expect(spanTokens(spans[1]!)).toBe(128);
    expect(spanTokens(spans[2]!)).toBeUndefined();
    expect(spanKind(span('x', '', 'invoke_agent', {}))).toBe('run');
    expect(spanKind(span('y', '', 'db query', {}))).toBe('other');
  });
});
