import type { ToolSet } from 'ai';
import { replaceExport } from './ai-sdk-exports.js';
import { type AiSdkGuardOptions, guardAiSdkTools } from './ai-sdk-tools.js';

const PATCHED = Symbol.for('loopguard.ai-sdk.patched');
const PATCHED_NAMES = ['generateText', 'streamText'] as const;
const AGENT_CLASSES = ['ToolLoopAgent', 'Experimental_Agent'] as const;
type TextFn = (params: { tools?: ToolSet } & Record<string, unknown>) => unknown;
type Settings = { tools?: ToolSet } & Record<string, unknown>;
type AgentClass = new (settings: Settings) => object;

function isMarked(value: unknown): boolean {
  return (
    typeof value === 'function' && (value as unknown as Record<symbol, unknown>)[PATCHED] === true
  );
}

function guardedTextFn(original: TextFn, options: AiSdkGuardOptions): TextFn {
  const wrapper: TextFn = function (this: unknown, params) {
    const tools = params?.tools;
    return original.call(
      this,
      tools ? { ...params, tools: guardAiSdkTools(tools, options) } : params,
    );
  };
  Object.defineProperty(wrapper, PATCHED, { value: true });
  return wrapper;
}

/** A constructor building the original agent class with guarded `tools` (same prototype). */
function guardedAgentClass(Original: AgentClass, options: AiSdkGuardOptions): AgentClass {
  function GuardedAgent(this: unknown, settings: Settings) {
    const guarded = settings?.tools
      ? { ...settings, tools: guardAiSdkTools(settings.tools, options) }
      : settings;
    return Reflect.construct(Original, [guarded], new.target ?? GuardedAgent);
  }
  GuardedAgent.prototype = Original.prototype;
  Object.defineProperty(GuardedAgent, 'name', { value: Original.name });
  Object.defineProperty(GuardedAgent, PATCHED, { value: true });
  return GuardedAgent as unknown as AgentClass;
}

/** The guarded replacement for export `key`, or undefined when it has none or is already one. */
function replacementFor(key: string, original: unknown, options: AiSdkGuardOptions): unknown {
  if (typeof original !== 'function' || isMarked(original)) return undefined;
  if ((AGENT_CLASSES as readonly string[]).includes(key)) {
    return guardedAgentClass(original as AgentClass, options);
  }
  return guardedTextFn(original as TextFn, options);
}

/**
 * For `register`: replaces `generateText` and `streamText` on the AI SDK's module exports with
 * versions that guard the `tools` they are given, and `ToolLoopAgent` (alias `Experimental_Agent`)
 * with a constructor that guards its `tools`. Idempotent. Returns false when the exports
 * cannot be changed in place (the SDK's CommonJS build defines them as fixed getters: use
 * `guardedAiSdkExports` there).
 */
export function patchAiSdk(mod: Record<string, unknown>, options: AiSdkGuardOptions = {}): boolean {
  if (!mod || typeof mod !== 'object') return false;
  let found = false;
  for (const key of [...PATCHED_NAMES, ...AGENT_CLASSES]) {
    const original = mod[key];
    if (typeof original !== 'function') continue;
    found = true;
    const replacement = replacementFor(key, original, options);
    if (replacement !== undefined && !replaceExport(mod, key, replacement)) return false;
  }
  return found;
}

/**
 * A copy of the AI SDK's module exports with `generateText`, `streamText` and `ToolLoopAgent` guarded, for module
 * hooks that can hand back a replacement exports object (require-in-the-middle).
 */
export function guardedAiSdkExports<M extends Record<string, unknown>>(
  mod: M,
  options: AiSdkGuardOptions = {},
): M {
  const copy: Record<string, unknown> = { ...mod };
  for (const key of [...PATCHED_NAMES, ...AGENT_CLASSES]) {
    const replacement = replacementFor(key, mod[key], options);
    if (replacement !== undefined) copy[key] = replacement;
  }
  return copy as M;
}
