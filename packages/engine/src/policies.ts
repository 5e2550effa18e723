import type { EffectivePolicy } from './state.js';
import type { ResolvedConfig, ToolKind, ToolPolicy } from './types.js';

const IDEMPOTENT = new Set([
  'read_file',
  'read',
  'view',
  'cat',
  'grep',
  'search',
  'glob',
  'find',
  'ls',
  'list_dir',
  'list_directory',
  'list_files',
  'web_search',
  'web_fetch',
  'fetch',
  'http_get',
  'search_files',
  'codebase_search',
  'get_file',
  'lookup',
  'query',
]);

const MUTATING = new Set([
  'write_file',
  'write',
  'edit',
  'edit_file',
  'str_replace',
  'apply_patch',
  'create_file',
  'delete_file',
  'move_file',
  'terminal',
  'bash',
  'shell',
  'run_command',
  'execute_command',
  'exec',
  'python',
  'browser_navigate',
  'browser_click',
  'browser_type',
  'http_post',
  'send_email',
  'todo_write',
]);

const POLLER_SUFFIXES = ['_status', '_poll', '_wait', '_logs', '_tail', '_progress'];
const POLLER_PREFIXES = ['poll_', 'check_status', 'get_status', 'wait_for_', 'tail_'];
const IDEMPOTENT_PREFIXES = ['read_', 'get_', 'list_', 'search_', 'find_', 'fetch_'];
const PAGERS = new Set([
  'scroll_down',
  'scroll_up',
  'page_down',
  'page_up',
  'next_page',
  'previous_page',
  'prev_page',
]);
const PAGER_PREFIXES = ['scroll_'];

/** The built-in kind for a tool name, from common agent tool names; `undefined` if unknown. */
export function builtinKind(tool: string): ToolKind | undefined {
  const name = tool.toLowerCase();
  if (
    POLLER_SUFFIXES.some((s) => name.endsWith(s)) ||
    POLLER_PREFIXES.some((p) => name.startsWith(p))
  ) {
    return 'poller';
  }
  if (PAGERS.has(name) || PAGER_PREFIXES.some((p) => name.startsWith(p))) return 'pager';
  if (IDEMPOTENT.has(name)) return 'idempotent';
  if (MUTATING.has(name)) return 'mutating';
  if (IDEMPOTENT_PREFIXES.some((p) => name.startsWith(p))) return 'idempotent';
  return undefined;
}

/** The policy in force for a tool: the configured one over the built-in kind. */
export function policyFor(tools: Record<string, ToolPolicy>, tool: string): ToolPolicy {
  const configured = Object.hasOwn(tools, tool) ? tools[tool] : undefined;
  if (configured?.kind !== undefined) return configured;
  const kind = builtinKind(tool);
  if (configured === undefined) return kind === undefined ? EMPTY : { kind };
  return kind === undefined ? configured : { ...configured, kind };
}

const EMPTY: ToolPolicy = Object.freeze({});

/** The policy of a tool with the global thresholds filled in. */
export function resolvePolicy(config: ResolvedConfig, tool: string): EffectivePolicy {
  const policy = policyFor(config.tools, tool);
  return {
    kind: policy.kind,
    ignoreArgs: policy.ignoreArgs ?? [],
    failureTolerant: policy.failureTolerant ?? false,
    nudge: policy.nudge ?? true,
    warnAfter: { ...config.guardrails.warnAfter, ...policy.warnAfter },
    hardStopAfter: { ...config.guardrails.hardStopAfter, ...policy.hardStopAfter },
    repetitionCount: config.guardrails.repetitionCount,
  };
}

/** Tools whose policy an engine keeps: a host that invents tool names cannot grow it further. */
export const MAX_CACHED_POLICIES = 1024;

/** The effective policy of each tool an engine sees, resolved once per name. */
export class PolicyCache {
  readonly #policies = new Map<string, EffectivePolicy>();

  constructor(private readonly config: ResolvedConfig) {}

  /** The policy of `tool`: kept for the first `MAX_CACHED_POLICIES` names, resolved anew past them. */
  of(tool: string): EffectivePolicy {
    let policy = this.#policies.get(tool);
    if (policy === undefined) {
      policy = resolvePolicy(this.config, tool);
      if (this.#policies.size < MAX_CACHED_POLICIES) this.#policies.set(tool, policy);
    }
    return policy;
  }
}
