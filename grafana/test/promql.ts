/** Metric and label names referenced by a PromQL expression (enough for cross-checks, not a parser). */
export interface PromqlRefs {
  metrics: Set<string>;
  labels: Set<string>;
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/** Extracts metric names and label names (matchers, grouping, label_values) from PromQL. */
export function promqlRefs(expr: string): PromqlRefs {
  const metrics = new Set<string>();
  const labels = new Set<string>();
  let rest = expr;
  // label_values(metric, label) of Grafana template variables
  rest = rest.replace(
    /label_values\(\s*([a-zA-Z_:][\w:]*)\s*,\s*([a-zA-Z_]\w*)\s*\)/g,
    (_, m, l) => {
      metrics.add(m);
      labels.add(l);
      return ' ';
    },
  );
  rest = rest.replace(/\{([^}]*)\}/g, (_, body: string) => {
    for (const m of body.matchAll(/([a-zA-Z_]\w*)\s*(=~|!~|!=|=)/g)) labels.add(m[1] as string);
    return ' ';
  });
  rest = rest.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ');
  rest = rest.replace(/\[[^\]]*\]/g, ' ');
  rest = rest.replace(
    /\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g,
    (_, _k, list: string) => {
      for (const l of list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean))
        labels.add(l);
      return ' ';
    },
  );
  for (const m of rest.matchAll(/(?<![\w.$])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const name = m[1] as string;
    if (m[2] || KEYWORDS.has(name)) continue; // function call or keyword
    metrics.add(name);
  }
  return { metrics, labels };
}

/** Metric families and their label names from a Prometheus text exposition. */
export function parseExposition(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line);
    if (type) {
      if (!out.has(type[1] as string)) out.set(type[1] as string, new Set());
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? \S+/.exec(line);
    if (!sample) continue;
    const set = out.get(sample[1] as string) ?? new Set<string>();
    for (const m of (sample[3] ?? '').matchAll(/([a-zA-Z_]\w*)="/g)) set.add(m[1] as string);
    out.set(sample[1] as string, set);
  }
  return out;
}
