import { context } from '@opentelemetry/api';
import { resolveScope, type ScopeSource } from '../../scope.js';
import { warnOnce } from '../../warn-once.js';
import { scopePerRun } from '../shared/index.js';

/** The parts of a LangGraph run config (or middleware runtime) the scope is read from. */
export interface LangChainRunInfo {
  configurable?: { thread_id?: unknown };
  writer?: unknown;
}

const scopeOfWriter = scopePerRun('langchain');

/** LangGraph gives every `invoke`/`stream` its own stream writer: one scope per writer. */
function runScope(writer: unknown): string | undefined {
  if (typeof writer !== 'function' && (typeof writer !== 'object' || writer === null)) {
    return undefined;
  }
  return scopeOfWriter(writer);
}

function contextSource(): ScopeSource | undefined {
  try {
    return resolveScope(undefined, context.active()).source;
  } catch (error) {
    warnOnce('loopguard: scope lookup failed', error);
    return undefined;
  }
}

/** The LangGraph `thread_id` of a run, if it has one. */
export function threadIdOf(run: LangChainRunInfo | undefined): string | undefined {
  const threadId = run?.configurable?.thread_id;
  return typeof threadId === 'string' && threadId !== '' ? threadId : undefined;
}

/**
 * The scope of a LangChain tool call, or undefined to let `traceToolCall` resolve it: `fixed`;
 * else the context conversation (`withScope`); else the run's `thread_id`; else the active trace;
 * else one scope per agent run.
 */
export function langChainScope(
  fixed: string | undefined,
  run: LangChainRunInfo | undefined,
): string | undefined {
  if (fixed) return fixed;
  const source = contextSource();
  if (source === 'conversation') return undefined;
  const threadId = threadIdOf(run);
  if (threadId) return threadId;
  return source === 'process' ? runScope(run?.writer) : undefined;
}
