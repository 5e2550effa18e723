import {
  diag,
  metrics,
  type ProxyTracerProvider,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { NodeSDK } from '@opentelemetry/sdk-node';
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

async function flushGlobal(): Promise<void> {
  const providers: unknown[] = [delegateOf(trace.getTracerProvider()), metrics.getMeterProvider()];
  await Promise.all(
    providers.map(async (provider) => {
      const flush = (provider as { forceFlush?: () => Promise<void> }).forceFlush;
      if (typeof flush === 'function') await flush.call(provider);
    }),
  );
}

function onHaltFrom(env: Record<string, string | undefined>): 'throw' | 'return' | undefined {
  const value = env.LOOPGUARD_ON_HALT?.trim().toLowerCase();
  if (value === 'throw' || value === 'return') return value;
  if (value) diag.warn(`loopguard: LOOPGUARD_ON_HALT must be "throw" or "return", got "${value}"`);
  return undefined;
}

/**
 * What `register` does: creates the default guard, patches the agent frameworks, and starts the
 * OpenTelemetry Node SDK (OTLP export configured by the standard `OTEL_*` variables) unless a
 * global tracer provider is already registered or `OTEL_SDK_DISABLED=true`. Loop guarding stays
 * on in every case.
 */
export function startLoopguard(options: StartOptions = {}): LoopguardHandle {
  const env = options.env ?? process.env;
  try {
    setGuard(createGuard({ onHalt: onHaltFrom(env) }));
  } catch (error) {
    diag.warn('loopguard: invalid configuration; the default guard uses built-in defaults', error);
  }
  const instrumentation = new LoopguardInstrumentation();
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  let sdk: NodeSDK | undefined;
  if (!disabled && !hasGlobalTracerProvider()) {
    try {
      sdk = new NodeSDK({ instrumentations: [instrumentation] });
      sdk.start();
    } catch (error) {
      diag.warn('loopguard: the OpenTelemetry SDK could not start; guarding without export', error);
      sdk = undefined;
    }
  }
  if (!sdk) registerInstrumentations({ instrumentations: [instrumentation] });

  let stopping: Promise<void> | undefined;
  const safely = (what: string, work: () => Promise<void>) =>
    work().catch((error: unknown) => diag.warn(`loopguard: ${what} failed`, error));
  return {
    sdkStarted: sdk !== undefined,
    instrumentation,
    forceFlush: () => safely('forceFlush', flushGlobal),
    shutdown() {
      stopping ??= safely('shutdown', () => (sdk ? sdk.shutdown() : flushGlobal()));
      return stopping;
    },
  };
}
