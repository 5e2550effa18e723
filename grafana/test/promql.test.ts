import { describe, expect, it } from 'vitest';
import { parseExposition, promqlRefs } from './promql.js';

describe('promqlRefs', () => {
  it('finds metrics and labels, not functions, keywords, durations or variables', () => {
    const r = promqlRefs(
      'sum by (service, tool) (rate(a_total{action=~"block|halt"}[10m])) / on(service) group_left b_total offset 1h > 3 * avg_over_time(c[5h:5m]) and label_values(d_total, reason) or vector(0) + $__range',
    );
    expect([...r.metrics].sort()).toEqual(['a_total', 'b_total', 'c', 'd_total']);
    expect([...r.labels].sort()).toEqual(['action', 'reason', 'service', 'tool']);
  });

  it('parses an exposition into families and label names', () => {
    const m = parseExposition(
      '# HELP a_total x\n# TYPE a_total counter\na_total{service="s",tool="t \\"q\\""} 3\n# TYPE b_total counter\nb_total 1\n# TYPE c_total counter\n',
    );
    expect([...m.keys()]).toEqual(['a_total', 'b_total', 'c_total']);
    expect([...(m.get('a_total') ?? [])]).toEqual(['service', 'tool']);
    expect(m.get('c_total')?.size).toBe(0);
  });
});
