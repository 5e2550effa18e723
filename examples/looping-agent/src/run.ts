import { randomUUID } from 'node:crypto';
import {
  createGuard,
  type Guard,
  guardAiSdkTools,
  guardedAiSdkExports,
  loopHalted,
  loopHaltOf,
  withScope,
} from '@loopguard/otel';
import { SpanKind, SpanStatusCode, type TracerProvider } from '@opentelemetry/api';
import * as ai from 'ai';
import { type ScenarioName, sessionPlan } from './scenarios.js';
import { ScriptedAgentModel } from './scripted-model.js';
import {
  type ActionCounts,
  createTelemetry,
  type LoopTokens,
  noLoopTokens,
  tracesUrl,
} from './telemetry.js';
import { createTools } from './tools.js';

/** Options of `runLoopingAgent`; all optional. */
export interface LoopingAgentOptions {
  /** Sessions to run (default 6); ignored with `loop`. */
  sessions?: number;
  /** Keep starting new sessions until `signal` aborts. */
  loop?: boolean;
  /** Pause between sessions in milliseconds (default 0, or 1000 with `loop`). */
  intervalMs?: number;
  /** OTLP/HTTP base URL; default `OTEL_EXPORTER_OTLP_ENDPOINT` or `http://127.0.0.1:4318`. */
  endpoint?: string;
  /** `service.name` of the exported spans (default `OTEL_SERVICE_NAME`, else `looping-agent`). */
  serviceName?: string;
  /** Stops a `loop` run (and a finite one between sessions). */
  signal?: AbortSignal;
  /** Called after every session. */
  onSession?: (session: SessionSummary) => void;
}

/** How one session ended. */
export type SessionOutcome = 'answered' | 'gave_up' | 'halted';

/** One agent session: a conversation with its own loopguard scope. */
export interface SessionSummary {
  conversationId: string;
  scenario: ScenarioName;
  hardStop: boolean;
  onHalt: 'throw' | 'return';
  steps: number;
  toolCalls: number;
  outcome: SessionOutcome;
  /** Tokens of the model steps behind this session's flagged calls, from its tool spans. */
  loopTokens: LoopTokens;
}

/** What a run did. `sessions` keeps the latest 100. */
export interface Summary {
  tracesUrl: string;
  sessionCount: number;
  sessions: SessionSummary[];
  /** `loopguard.action` of every exported tool span. */
  actions: ActionCounts;
  /** `loopTokens` of every session of the run, summed. */
  loopTokens: LoopTokens;
  /** Set when the final flush to the OTLP endpoint failed (spans of the run may be lost). */
  exportError?: string;
}

const AGENT_NAME = 'looping-agent';

interface Guards {
  soft: Guard;
  halting: Guard;
  returning: Guard;
}

/**
 * The AI SDK's `generateText` as loopguard patches it (what `register` does to the module): the
 * tools, already guarded, are passed through; each model step's usage and model reach the tool
 * spans of its calls. With the SDK's own telemetry on, no run span is added (the agent opens its
 * own below).
 */
const { generateText } = guardedAiSdkExports({ generateText: ai.generateText });

const KEEP_SESSIONS = 100;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

async function runSession(
  index: number,
  runId: string,
  guards: Guards,
  provider: TracerProvider,
  takeLoopTokens: (scope: string) => LoopTokens,
): Promise<SessionSummary> {
  const { scenario, hardStop, onHalt } = sessionPlan(index);
  const guard = !hardStop ? guards.soft : onHalt === 'throw' ? guards.halting : guards.returning;
  const conversationId = `${runId}-${String(index + 1).padStart(3, '0')}-${scenario.name}`;
  const tracer = provider.getTracer(AGENT_NAME, '0.1.0');
  const model = new ScriptedAgentModel(scenario.plan, `${conversationId}-call`);
  const tools = guardAiSdkTools(createTools(), { guard });
  return withScope(conversationId, () =>
    tracer.startActiveSpan(
      `invoke_agent ${AGENT_NAME}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': AGENT_NAME,
          'gen_ai.conversation.id': conversationId,
          'gen_ai.request.model': model.modelId,
          'loopguard.example.scenario': scenario.name,
          'loopguard.example.hard_stop': hardStop,
          'loopguard.example.on_halt': onHalt,
        },
      },
      async (span) => {
        try {
          let outcome: SessionOutcome;
          try {
            const result = await generateText({
              model,
              system: 'You are a coding agent. Use the tools to complete the task.',
              prompt: scenario.task,
              tools,
              stopWhen: [ai.stepCountIs(40), loopHalted()],
              experimental_telemetry: { isEnabled: true, tracer, functionId: scenario.name },
            });
            // a refused call (onHalt: 'return') ends the patched run with loopguard's final message
            outcome =
              result.text.startsWith('I will stop') || result.text.startsWith('[loopguard]')
                ? 'gave_up'
                : 'answered';
          } catch (error) {
            // the patched SDK ends a run loopguard halted with its LoopHaltError
            if (!loopHaltOf(error)) throw error;
            outcome = 'halted';
          }
          span.setAttribute('loopguard.example.outcome', outcome);
          if (outcome === 'halted')
            span.setStatus({ code: SpanStatusCode.ERROR, message: 'halted by loopguard' });
          return {
            conversationId,
            scenario: scenario.name,
            hardStop,
            onHalt,
            steps: model.modelCalls,
            toolCalls: model.toolCalls,
            outcome,
            loopTokens: takeLoopTokens(conversationId),
          };
        } finally {
          span.end();
        }
      },
    ),
  );
}

/** Flushes and shuts the provider down; returns the export failure, if any, instead of throwing. */
async function flushAndStop(provider: {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}): Promise<string | undefined> {
  let failure: string | undefined;
  for (const step of [() => provider.forceFlush(), () => provider.shutdown()]) {
    try {
      await step();
    } catch (error) {
      failure ??= error instanceof Error ? error.message : String(error);
    }
  }
  return failure;
}

/**
 * Runs the example agent: sessions of a scripted model looping the way real agents do, with
 * AI SDK tools guarded by loopguard, exported as OTLP/HTTP traces. Hard stop is on in every
 * other session, so blocks and halts occur. Never touches the network beyond the
 * OTLP endpoint.
 */
export async function runLoopingAgent(options: LoopingAgentOptions = {}): Promise<Summary> {
  const url = tracesUrl(options.endpoint);
  const service = options.serviceName ?? (process.env.OTEL_SERVICE_NAME || AGENT_NAME);
  const { provider, counts, takeLoopTokens } = createTelemetry(url, service);
  const loopTokens = noLoopTokens();
  const engine = (hardStop: boolean) => ({ configFile: false as const, guardrails: { hardStop } });
  const common = { tracerProvider: provider, capture: true, agentName: AGENT_NAME };
  const guards: Guards = {
    soft: createGuard({ ...common, engine: engine(false) }),
    halting: createGuard({ ...common, engine: engine(true), onHalt: 'throw' }),
    returning: createGuard({ ...common, engine: engine(true), onHalt: 'return' }),
  };
  const runId = randomUUID().slice(0, 8);
  const total = options.loop ? Number.POSITIVE_INFINITY : Math.max(0, options.sessions ?? 6);
  const interval = options.intervalMs ?? (options.loop ? 1000 : 0);
  const sessions: SessionSummary[] = [];
  let count = 0;
  let exportError: string | undefined;
  try {
    while (count < total && !options.signal?.aborted) {
      const session = await runSession(count, runId, guards, provider, takeLoopTokens);
      count += 1;
      for (const key of Object.keys(loopTokens) as (keyof LoopTokens)[])
        loopTokens[key] += session.loopTokens[key];
      sessions.push(session);
      if (sessions.length > KEEP_SESSIONS) sessions.shift();
      options.onSession?.(session);
      if (count < total) await sleep(interval, options.signal);
    }
  } finally {
    exportError = await flushAndStop(provider);
  }
  const summary: Summary = {
    tracesUrl: url,
    sessionCount: count,
    sessions,
    actions: { ...counts },
    loopTokens,
  };
  if (exportError) summary.exportError = exportError;
  return summary;
}
