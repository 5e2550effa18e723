import type { StopDecision } from '@loopguard/engine';
import { context } from '@opentelemetry/api';
import type { Tool, ToolExecutionOptions, ToolSet } from 'ai';
import { noticeAsText } from '../../default-adapter.js';
import { LoopHaltError } from '../../errors.js';
import { getGuard } from '../../guard.js';
import { scopeOfOption } from '../../scope.js';
import type { ResultAdapter } from '../../types.js';
import { cancellableBy, isPlainObject, runScopeUnlessContext } from '../shared/index.js';
import { unlessRefused } from './approval.js';
import { CallNotices } from './notices.js';
import { currentRun, inRun, noteHalt, type Run } from './runs.js';
import { isAsyncIterable, relay, type Stream, settle } from './stream.js';
import type { AiSdkGuardOptions } from './types.js';

/**
 * Thrown from a guarded AI SDK tool whose call loopguard blocked. The AI SDK turns a throwing
 * `execute` into a `tool-error` part and sends the model an `error-text` result with this message,
 * so the model reads why the call did not run.
 */
export class ToolCallBlockedError extends Error {
  /** The block decision: axis, counts and the message the model reads. */
  readonly decision: StopDecision;

  constructor(decision: StopDecision) {
    super(decision.message);
    this.name = 'ToolCallBlockedError';
    this.decision = decision;
  }
}

const GUARDED = Symbol.for('loopguard.ai-sdk.guarded');
/** On a tool bound to a run: the guarded tool it delegates to. */
const BOUND_FROM = Symbol('loopguard.ai-sdk.bound-from');
const BLOCKED = Symbol('loopguard.ai-sdk.blocked');
const NOTICE_FIELD = 'loopguard';

interface Blocked {
  [BLOCKED]: StopDecision;
}

type AnyTool = Tool & { [GUARDED]?: true; [BOUND_FROM]?: AnyTool };
type Execute = (input: unknown, options: ToolExecutionOptions) => unknown;
type ToModelOutput = NonNullable<Tool['toModelOutput']>;
type ModelOutput = Awaited<ReturnType<ToModelOutput>>;

function isBlocked(value: unknown): value is Blocked {
  return typeof value === 'object' && value !== null && BLOCKED in value;
}

/**
 * Copies of the guarded tools in `tools` whose calls (and approval policies) belong to `run`: they
 * count in its scope whenever no explicit scope, conversation id or active trace applies, and
 * their halts are noted on it. Other tools are passed through unchanged.
 */
export function bindRun<TOOLS extends ToolSet>(tools: TOOLS, run: Run): TOOLS {
  const out: Record<string, AnyTool> = {};
  for (const [name, value] of Object.entries(tools)) {
    const tool = value as AnyTool;
    const base = tool?.[BOUND_FROM] ?? tool;
    const execute = base?.execute as Execute | undefined;
    if (!base?.[GUARDED] || typeof execute !== 'function') {
      out[name] = tool;
      continue;
    }
    const copy = {
      ...base,
      execute: (input: unknown, execOptions: ToolExecutionOptions) =>
        inRun(run, () => execute.call(base, input, execOptions)),
    } as AnyTool;
    const policy = base.needsApproval;
    if (typeof policy === 'function') {
      copy.needsApproval = (input, approvalOptions) =>
        inRun(run, () => policy.call(base, input, approvalOptions));
    }
    Object.defineProperty(copy, GUARDED, { value: true });
    Object.defineProperty(copy, BOUND_FROM, { value: base });
    out[name] = copy;
  }
  return out as TOOLS;
}

/** The scope to pass to the guard: the option's, else the run's when the context has none. */
function scopeOf(
  name: string,
  options: AiSdkGuardOptions,
  execOptions: ToolExecutionOptions,
): string | undefined {
  const scope = scopeOfOption(options, [name, execOptions], 'AI SDK scope callback');
  if (scope) return scope;
  const run = currentRun()?.scope;
  return run ? runScopeUnlessContext(() => run, 'AI SDK') : undefined;
}

/** Notes on the current run (if any) how loopguard ended the call `traced` settles. */
function noteRunHalt(traced: Promise<unknown>): void {
  const run = currentRun();
  if (!run) return;
  traced.then(
    (value) => {
      if (isBlocked(value)) noteHalt(run, { message: value[BLOCKED].message });
    },
    (error: unknown) => {
      if (error instanceof LoopHaltError) noteHalt(run, { error });
    },
  );
}

function unblock(result: unknown): unknown {
  if (isBlocked(result)) throw new ToolCallBlockedError(result[BLOCKED]);
  return result;
}

/** Results that carry a notice in their own type: text after a string, a field of a plain object. */
function carriesNotice(result: unknown): boolean {
  return typeof result === 'string' || isPlainObject(result);
}

/**
 * AI SDK results: strings get the notice after a blank line, plain objects a `loopguard` field
 * (copies, never the original). Any other result is returned as it was, its notice kept in
 * `notices` for the tool's `toModelOutput` when the SDK gave a call id (else only on the span).
 * A tool with its own `toModelOutput` keeps every result as it was.
 */
function resultAdapter(
  notices: CallNotices,
  callId: string | undefined,
  input: unknown,
  ownOutput: boolean,
): ResultAdapter<unknown> {
  return {
    blocked(decision) {
      return { [BLOCKED]: decision } satisfies Blocked;
    },
    appendNotice(result, notice) {
      if (!ownOutput && carriesNotice(result)) {
        if (typeof result === 'string') return noticeAsText(result, notice);
        const fields = result as Record<string, unknown>;
        const previous = fields[NOTICE_FIELD];
        const text = typeof previous === 'string' ? `${previous}\n\n${notice}` : notice;
        return { ...fields, [NOTICE_FIELD]: text };
      }
      if (callId !== undefined) notices.add(callId, input, notice);
      return result;
    },
  };
}

/** What the SDK sends the model for a tool without `toModelOutput` (its own default). */
function defaultModelOutput(output: unknown): ModelOutput {
  return typeof output === 'string'
    ? { type: 'text', value: output }
    : { type: 'json', value: (output === undefined ? null : output) as never };
}

/** AI SDK 6+ calls `toModelOutput({ toolCallId, input, output })`; AI SDK 5 passes the output. */
function isOutputCall(args: unknown): args is Parameters<ToModelOutput>[0] {
  return (
    isPlainObject(args) &&
    typeof args.toolCallId === 'string' &&
    'output' in args &&
    'input' in args
  );
}

function withNotice(output: ModelOutput, notice: string): ModelOutput {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { ...output, value: `${output.value}\n\n${notice}` };
    case 'content':
      return { ...output, value: [...output.value, { type: 'text', text: notice }] };
    case 'json':
    case 'error-json': {
      const text = JSON.stringify(output.value);
      return {
        type: 'content',
        value: [
          { type: 'text', text },
          { type: 'text', text: notice },
        ],
      };
    }
    default:
      return output;
  }
}

function guardOne(name: string, original: AnyTool, options: AiSdkGuardOptions): AnyTool {
  const execute = original.execute as Execute | undefined;
  if (typeof execute !== 'function' || original[GUARDED]) return original;
  const ownToModelOutput = original.toModelOutput as ToModelOutput | undefined;
  const notices = new CallNotices();

  const guardedExecute = (input: unknown, execOptions: ToolExecutionOptions): unknown => {
    const guard = options.guard ?? getGuard();
    const scope = scopeOf(name, options, execOptions);
    const callId = execOptions?.toolCallId;
    if (callId !== undefined) notices.start(callId, input);
    const adapter = cancellableBy(
      resultAdapter(notices, callId, input, ownToModelOutput !== undefined),
      execOptions?.abortSignal,
    );
    let stream: Stream | undefined;
    let starting = true;
    const run = (): Promise<unknown> => {
      const output = execute.call(original, input, execOptions);
      // The SDK emits preliminary results only when `execute` itself returns an async iterable,
      // so one the guard started synchronously is relayed by what `guardedExecute` returns.
      if (starting && isAsyncIterable(output)) {
        return new Promise((resolve, reject) => {
          stream = {
            iterator: output[Symbol.asyncIterator](),
            ctx: context.active(),
            end: (outcome) => ('error' in outcome ? reject(outcome.error) : resolve(outcome.value)),
          };
        });
      }
      return Promise.resolve(output).then(settle);
    };
    let traced: Promise<unknown>;
    try {
      const step = currentRun()?.step;
      traced = guard.traceToolCall(
        { tool: name, args: input, callId, scope, toolType: 'function', ...(step ? { step } : {}) },
        run,
        adapter,
      );
    } catch (error) {
      // Only a custom guard throws here; the SDK reads a rejection as the tool's error either way.
      traced = Promise.reject(error);
    } finally {
      starting = false;
    }
    noteRunHalt(traced);
    // Narrowed to never by TypeScript: `run` assigns it through a closure.
    const started = stream as Stream | undefined;
    return started ? relay(started, traced, unblock) : traced.then(unblock);
  };

  const copy: AnyTool = { ...original, execute: guardedExecute } as AnyTool;
  if (original.needsApproval) {
    copy.needsApproval = unlessRefused(
      name,
      original,
      () => options.guard ?? getGuard(),
      (execOptions) => scopeOf(name, options, execOptions),
    );
  }
  copy.toModelOutput = async (args: Parameters<ToModelOutput>[0]) => {
    if (!isOutputCall(args)) {
      const output: unknown = args;
      return ownToModelOutput ? ownToModelOutput.call(original, args) : defaultModelOutput(output);
    }
    const output = ownToModelOutput
      ? await ownToModelOutput.call(original, args)
      : defaultModelOutput(args.output);
    // Kept, not taken: streamText asks once for the step and again for the next prompt.
    const notice = notices.get(args.toolCallId, args.input);
    return notice === undefined ? output : withNotice(output, notice);
  };
  Object.defineProperty(copy, GUARDED, { value: true });
  return copy;
}

/**
 * Returns a new AI SDK tools record whose `execute` functions run through loopguard: each call
 * becomes an `execute_tool <name>` span (call id = the SDK's `toolCallId`) with a loop decision.
 * Nudges and warnings are added to the result the model reads without changing its type (strings:
 * appended text; plain objects: a `loopguard` field; any other result, and every result of a tool
 * with its own `toModelOutput`: returned as it was, the notice appended to what `toModelOutput`
 * gives the model). A blocked
 * call throws `ToolCallBlockedError`, which the SDK feeds back to the model as an error result
 * (the patched SDK ends the run after that step; an unpatched one needs `loopHalted()`).
 * Streaming tools (`execute` returning an async iterable) keep their preliminary results; the
 * decision is made on the last value, and the span covers the whole stream.
 * Tools without `execute` and already guarded tools are passed through; the input is not changed.
 *
 * Scope: `options.scope`, else the context (`withScope`, active span). Tools passed to the
 * patched `generateText`/`streamText` or a patched agent (`register`) fall back to one scope per
 * call; called from an unpatched SDK, a guarded tool cannot see where a run starts and falls back
 * to `"process"`: use `withScope` or `scope` to keep concurrent runs apart.
 */
export function guardAiSdkTools<TOOLS extends ToolSet>(
  tools: TOOLS,
  options: AiSdkGuardOptions = {},
): TOOLS {
  const out: Record<string, AnyTool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    out[name] = guardOne(name, tool as AnyTool, options);
  }
  return out as TOOLS;
}
