// Realistic looping agent data as SpanRecords: sessions of tool calls where some signatures repeat
// in streaks (nudges at 3/5/8, warns, an occasional block), plus one LLM span per few calls.

const TOOLS = [
  'grep',
  'read_file',
  'list_dir',
  'run_tests',
  'search_web',
  'fetch_url',
  'write_file',
  'shell',
  'git_status',
  'todo_write',
];
const SERVICES = ['coder-agent', 'research-agent', 'support-bot', 'ops-agent', 'eval-runner'];

// mulberry32: the LCG used before multiplied past 2^53, lost its low bits and repeated itself after
// 10 466 numbers, so the million spans were a few thousand sessions replayed (its signatures
// repeated across hours far more than an agent's do, and the hourly rollups were 100x smaller).
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (list) => list[Math.floor(rand() * list.length)];
let idCounter = 0;
/** Unique, random-looking lowercase hex ids (cheaper than crypto for a million spans). */
const hex = (bytes) => {
  idCounter++;
  let out = '';
  while (out.length < bytes * 2)
    out += Math.floor(rand() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return (idCounter.toString(16) + out).slice(0, bytes * 2).padStart(bytes * 2, '0');
};
const argHex = (n) => n.toString(16).padStart(16, '0');

/**
 * Yields batches of spans until `total` are produced, spread over the `windowMs` before `endMs`.
 * About 1 in 10 spans is a non-tool (LLM) span. `order: 'arrival'` starts the sessions one after
 * another through the window (a few minutes of overlap), the order a live receiver gets them in;
 * `'shuffled'` starts each at a random time (a backfill). The same seed gives the same sessions.
 */
export function* loopingSpans({
  total,
  batch = 50_000,
  endMs = Date.now(),
  windowMs = 6 * 86_400_000,
  order = 'shuffled',
}) {
  seed = 42;
  let made = 0;
  let session = 0;
  let out = [];
  while (made < total) {
    session++;
    const service = pick(SERVICES);
    const scope = `${service}/run-${session}`;
    const traceId = hex(16);
    const offset = Math.floor(rand() * windowMs);
    let t =
      order === 'arrival'
        ? endMs - windowMs + Math.floor((made / total) * windowMs) - 600_000 - (offset % 600_000)
        : endMs - offset;
    const calls = 20 + Math.floor(rand() * 60);
    const counts = new Map();
    let last = '';
    let streak = 0;
    for (let i = 0; i < calls && made < total; i++) {
      const looping = rand() < 0.6 && last !== '';
      const tool = looping ? last.split(':')[0] : pick(TOOLS);
      const signature = looping ? last : `${tool}:${argHex(Math.floor(rand() * 5000))}`;
      streak = signature === last ? streak + 1 : 1;
      last = signature;
      const count = (counts.get(signature) ?? 0) + 1;
      counts.set(signature, count);
      const nudgeLevel = streak === 3 ? 1 : streak === 5 ? 2 : streak === 8 ? 3 : 0;
      const action =
        streak >= 12
          ? 'block'
          : count >= 5 && !nudgeLevel
            ? 'warn'
            : nudgeLevel
              ? 'nudge'
              : 'allow';
      const axis = action === 'allow' ? undefined : action === 'nudge' ? 'streak' : 'repetition';
      const start = BigInt(t) * 1_000_000n;
      const durationNs = BigInt(1 + Math.floor(rand() * 400)) * 1_000_000n;
      const attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'gen_ai.tool.call.id': `call_${hex(6)}`,
        'gen_ai.conversation.id': `conv-${session}`,
        'gen_ai.agent.name': service,
        'loopguard.signature': signature,
        'loopguard.args_hash': signature.split(':')[1].padEnd(64, '0'),
        'loopguard.scope': scope,
        'loopguard.streak': String(streak),
        'loopguard.count': String(count),
        'loopguard.action': action,
        'loopguard.outcome': action === 'block' ? 'blocked' : rand() < 0.1 ? 'error' : 'ok',
      };
      if (axis) attributes['loopguard.axis'] = axis;
      if (nudgeLevel) attributes['loopguard.nudge.level'] = String(nudgeLevel);
      out.push({
        traceId,
        spanId: hex(8),
        parentSpanId: '',
        traceState: '',
        name: `execute_tool ${tool}`,
        kind: 'Internal',
        serviceName: service,
        scopeName: '@loopguard/otel',
        scopeVersion: '0.1.0',
        startTimeUnixNano: start,
        durationNs,
        statusCode: action === 'block' ? 'Error' : 'Unset',
        statusMessage: '',
        attributes,
        resourceAttributes: {
          'service.name': service,
          'host.name': 'bench',
          'process.runtime.name': 'nodejs',
        },
        events: axis
          ? [
              {
                timeUnixNano: start,
                name: `loopguard.${action}`,
                attributes: { 'loopguard.axis': axis, 'loopguard.count': String(count) },
              },
            ]
          : [],
        links: [],
      });
      made++;
      if (i % 9 === 8 && made < total) {
        out.push({
          traceId,
          spanId: hex(8),
          parentSpanId: '',
          traceState: '',
          name: 'chat gpt-4o',
          kind: 'Client',
          serviceName: service,
          scopeName: 'openai',
          scopeVersion: '1.0.0',
          startTimeUnixNano: start + 1000n,
          durationNs: 900_000_000n,
          statusCode: 'Unset',
          statusMessage: '',
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4o',
            'gen_ai.usage.input_tokens': '1200',
          },
          resourceAttributes: { 'service.name': service },
          events: [],
          links: [],
        });
        made++;
      }
      t += 200 + Math.floor(rand() * 3000);
      if (out.length >= batch) {
        yield out;
        out = [];
      }
    }
  }
  if (out.length) yield out;
}
