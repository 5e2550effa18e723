import {
  DiagConsoleLogger,
  DiagLogLevel,
  diag,
  metrics,
  type ProxyTracerProvider,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { endOpenAgentRuns } from './agent-run.js';
import { createGuard, setGuard } from './guard.js';
import { LoopguardInstrumentation } from './instrumentation.js';

/** What `startLoopguard` set up; `shutdown` and `forceFlush` are idempotent and never reject. */
export interface LoopguardHandle {
  /** True when loopguard started the OpenTelemetry Node SDK itself. */
  readonly sdkStarted: boolean;
  readonly instrumentation: LoopguardInstrumentation;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Options of `startLoopguard`. */
export interface StartOptions {
  env?: Record<string, string | undefined>;
}

function delegateOf(provider: TracerProvider): TracerProvider {
  const proxy = provider as Partial<ProxyTracerProvider>;
  return typeof proxy.getDelegate === 'function' ? proxy.getDelegate() : provider;
}

/** Whether an application or another agent already registered a global tracer provider. */
export function hasGlobalTracerProvider(): boolean {
  const delegate = delegateOf(trace.getTracerProvider());
  return delegate.constructor?.name !== 'NoopTracerProvider';
}

/** Whether an OpenTelemetry setup is already running: a global tracer or meter provider. */
function hasGlobalProvider(): boolean {
  return (
    hasGlobalTracerProvider() ||
    metrics.getMeterProvider().constructor?.name !== 'NoopMeterProvider'
  );
}

async function flushGlobal(): Promise<void> {
  const providers: unknown[] = [delegateOf(trace.getTracerProvider()), metrics.getMeterProvider()];
  await Promise.all(
    providers.map(async (provider) => {
      const flush = (provider as { forceFlush?: () => Promise<void> }).forceFlush;
      if (typeof flush === 'function') await flush.call(provider);
    }),
  );
}

type Warn = (message: string, error?: unknown) => void;

function onHaltFrom(
  env: Record<string, string | undefined>,
  warn: Warn,
): 'throw' | 'return' | undefined {
  const value = env.LOOPGUARD_ON_HALT?.trim().toLowerCase();
  if (value === 'throw' || value === 'return') return value;
  if (value) warn(`loopguard: LOOPGUARD_ON_HALT must be "throw" or "return", got "${value}"`);
  return undefined;
}

/**
 * `OTEL_LOG_LEVEL` when loopguard starts no SDK (the SDK applies it otherwise), unless a diag
 * logger is registered already: loopguard's own warnings stay visible with the SDK disabled.
 */
function applyLogLevel(env: Record<string, string | undefined>): void {
  const name = env.OTEL_LOG_LEVEL?.trim().toUpperCase();
  const level = name ? DiagLogLevel[name as keyof typeof DiagLogLevel] : undefined;
  if (level === undefined) return;
  const api = (globalThis as Record<symbol, { diag?: unknown } | undefined>)[
    Symbol.for('opentelemetry.js.api.1')
  ];
  if (api?.diag !== undefined) return;
  diag.setLogger(new DiagConsoleLogger(), { logLevel: level });
}

/**
 * What `register` does: creates the default guard, patches the agent frameworks, and starts the
 * OpenTelemetry Node SDK (OTLP export configured by the standard `OTEL_*` variables) unless a
 * global tracer or meter provider is already registered or `OTEL_SDK_DISABLED=true`. Loop guarding stays
 * on in every case.
 */
export function startLoopguard(options: StartOptions = {}): LoopguardHandle {
  const env = options.env ?? process.env;
  // said once the diag logger is set up (by the SDK, from OTEL_LOG_LEVEL)
  const early: [string, unknown][] = [];
  const warn: Warn = (message, error) => early.push([message, error]);
  try {
    setGuard(createGuard({ onHalt: onHaltFrom(env, warn) }));
  } catch (error) {
    warn('loopguard: invalid configuration; the default guard uses built-in defaults', error);
  }
  const instrumentation = new LoopguardInstrumentation();
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  let sdk: NodeSDK | undefined;
  if (!disabled && !hasGlobalProvider()) {
    try {
      sdk = new NodeSDK({ instrumentations: [instrumentation] });
      sdk.start();
    } catch (error) {
      diag.warn('loopguard: the OpenTelemetry SDK could not start; guarding without export', error);
      sdk = undefined;
    }
  }
  if (!sdk) {
    applyLogLevel(env);
    registerInstrumentations({ instrumentations: [instrumentation] });
  }
  for (const [message, error] of early) diag.warn(message, ...(error === undefined ? [] : [error]));

  let stopping: Promise<void> | undefined;
  const safely = (what: string, work: () => Promise<void>) =>
    work().catch((error: unknown) => diag.warn(`loopguard: ${what} failed`, error));
  return {
    sdkStarted: sdk !== undefined,
    instrumentation,
    forceFlush: () => safely('forceFlush', flushGlobal),
    shutdown() {
      stopping ??= safely('shutdown', () => {
        endOpenAgentRuns();
        return sdk ? sdk.shutdown() : flushGlobal();
      });
      return stopping;
    },
  };
}
