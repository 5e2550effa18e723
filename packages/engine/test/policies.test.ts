import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/resolve.js';
import { appendNotice } from '../src/notice.js';
import { builtinKind, MAX_CACHED_POLICIES, PolicyCache, resolvePolicy } from '../src/policies.js';
import { call, engineWith } from './helpers.js';

describe('tool policies', () => {
  it('ships built-in kinds for common tool names', () => {
    expect(['read_file', 'grep', 'glob', 'web_search'].map(builtinKind)).toEqual(
      Array(4).fill('idempotent'),
    );
    expect(['write_file', 'edit', 'terminal', 'bash'].map(builtinKind)).toEqual(
      Array(4).fill('mutating'),
    );
    expect(['job_status', 'build_poll', 'poll_queue', 'wait_for_deploy'].map(builtinKind)).toEqual(
      Array(4).fill('poller'),
    );
    expect(builtinKind('frobnicate')).toBeUndefined();
  });

  it('lets configuration override the built-in kind', () => {
    const engine = engineWith({ nudge: { thresholds: [] }, tools: { grep: { kind: 'mutating' } } });
    const decisions = [0, 1, 2, 3, 4].map(
      (i) => call(engine, 'grep', { q: 1 }, { result: i }).after!,
    );
    expect(decisions[4]!.findings.map((f) => f.axis)).toEqual(['repetition']);
  });

  it('keeps the policy of a tool named like an Object.prototype key', () => {
    // as JSON.parse (a config file) gives it: an own "__proto__" key
    const tools = JSON.parse('{"__proto__": {"nudge": false}, "toString": {"nudge": false}}');
    const engine = engineWith({ tools });
    for (const tool of ['__proto__', 'toString']) {
      const actions = [1, 2, 3].map(
        (i) => call(engine, tool, { q: 1 }, { result: i }).after!.action,
      );
      expect(actions, tool).toEqual(['allow', 'allow', 'allow']);
    }
    const plain = engineWith();
    for (const tool of ['__proto__', 'constructor']) {
      const actions = [1, 2, 3].map(
        (i) => call(plain, tool, { q: 1 }, { result: i }).after!.action,
      );
      expect(actions, tool).toEqual(['allow', 'allow', 'nudge']);
    }
  });

  it('ignoreArgs keys do not split a signature', () => {
    const engine = engineWith({ tools: { http_get: { ignoreArgs: ['request_id', 'timeout'] } } });
    const decisions = [1, 2, 3].map(
      (i) =>
        call(engine, 'http_get', { url: 'u', request_id: i, timeout: i }, { result: i }).after!,
    );
    expect(new Set(decisions.map((d) => d.signature)).size).toBe(1);
    expect(decisions[2]!.action).toBe('nudge');
  });
});

describe('appendNotice', () => {
  const engine = engineWith();
  call(engine, 'x', {}, { result: 1 });
  call(engine, 'x', {}, { result: 2 });
  const nudge = call(engine, 'x', {}, { result: 3 }).after!;

  it('appends to strings, MCP content and arrays without touching the original', () => {
    const mcp = { content: [{ type: 'text', text: 'hello' }], isError: false };
    const out = appendNotice(mcp, nudge) as typeof mcp;
    expect(out.content).toHaveLength(2);
    expect(mcp.content).toHaveLength(1);
    expect(out.content[0]).toBe(mcp.content[0]);
    expect(appendNotice(['a'], nudge)).toEqual([
      'a',
      nudge.action !== 'allow' ? nudge.message : '',
    ]);
    expect(appendNotice({ n: 1 }, nudge)).toBe(
      `{"n":1}\n\n${nudge.action !== 'allow' ? nudge.message : ''}`,
    );
    expect(appendNotice(undefined, nudge)).toContain('[loopguard]');
  });

  it('keeps the content of results JSON cannot write: Map, Set, Error, BigInt, cycles', () => {
    const circular: { rows: number; self?: unknown } = { rows: 3 };
    circular.self = circular;
    const cases: [unknown, string][] = [
      [new Map([['k', 'v']]), "'k' => 'v'"],
      [new Set([1, 2]), '1, 2'],
      [new Error('disk full'), 'disk full'],
      [{ bytes: 10n }, '10n'],
      [circular, 'rows: 3'],
    ];
    for (const [result, kept] of cases) {
      const out = appendNotice(result, nudge) as string;
      expect(out).toContain(kept);
      expect(out.endsWith(nudge.action !== 'allow' ? nudge.message : '')).toBe(true);
    }
  });

  it('returns the result itself when the decision is allow', () => {
    const result = { a: 1 };
    const allow = call(engineWith(), 'y', {}).after!;
    expect(appendNotice(result, allow)).toBe(result);
  });
});

describe('resolvePolicy and PolicyCache', () => {
  const { config } = loadConfig({
    configFile: false,
    env: {},
    guardrails: { warnAfter: { repetition: 4 } },
    tools: {
      grep: { kind: 'mutating', ignoreArgs: ['timeout'] },
      job_status: { warnAfter: { poll: 3 } },
    },
  });

  it('fills in the global thresholds under the configured policy over the built-in kind', () => {
    expect(resolvePolicy(config, 'grep')).toMatchObject({
      kind: 'mutating',
      ignoreArgs: ['timeout'],
      failureTolerant: false,
      nudge: true,
    });
    const poller = resolvePolicy(config, 'job_status');
    expect(poller.kind).toBe('poller');
    expect(poller.warnAfter).toEqual({ ...config.guardrails.warnAfter, poll: 3 });
    expect(poller.warnAfter.repetition).toBe(4);
    expect(resolvePolicy(config, 'deploy')).toMatchObject({ kind: undefined, ignoreArgs: [] });
  });

  it('resolves each tool once while it holds fewer than its bound', () => {
    const policies = new PolicyCache(config);
    const grep = policies.of('grep');
    expect(grep).toEqual(resolvePolicy(config, 'grep'));
    expect(policies.of('read_file')).toBe(policies.of('read_file'));
    expect(policies.of('grep')).toBe(grep);
  });

  it('still resolves every tool past its bound, without keeping it', () => {
    const policies = new PolicyCache(config);
    for (let i = 0; i < MAX_CACHED_POLICIES; i++) policies.of(`tool_${i}`);
    expect(policies.of('tool_0')).toBe(policies.of('tool_0'));
    const late = policies.of('job_status');
    expect(late).toEqual(resolvePolicy(config, 'job_status'));
    expect(policies.of('job_status')).not.toBe(late);
  });
});
