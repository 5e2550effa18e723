import { createRequire } from 'node:module';
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
import type { NodeSDK } from '@opentelemetry/sdk-node';
import { endOpenAgentRuns } from './agent-run.js';
import { createGuard, setGuard } from './guard.js';
import { LoopguardInstrumentation, onFrameworkPatched } from './instrumentation.js';

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

type NodeSdkModule = typeof import('@opentelemetry/sdk-node');
type CoreModule = Pick<
  typeof import('@opentelemetry/core'),
  'loggingErrorHandler' | 'setGlobalErrorHandler'
>;

/**
 * The app's `@opentelemetry/sdk-node` (an optional peer, of either line: 0.2xx or 0.3xx), found
 * from where loopguard is installed, with the `@opentelemetry/core` it uses (for its global error
 * handler, if it can be found); undefined when sdk-node is not installed.
 */
function loadNodeSdk(): { sdk: NodeSdkModule; core: CoreModule | undefined } | undefined {
  const require = createRequire(import.meta.url);
  let path: string;
  try {
    path = require.resolve('@opentelemetry/sdk-node');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  const sdk = require(path) as NodeSdkModule;
  let core: CoreModule | undefined;
  try {
    core = createRequire(path)('@opentelemetry/core') as CoreModule;
  } catch {
    core = undefined;
  }
  return { sdk, core };
}

/** Said on stderr (not through diag, which is silent by default) when there is no SDK to start. */
export const NO_SDK_MESSAGE =
  'loopguard: no OpenTelemetry SDK is registered and @opentelemetry/sdk-node is not installed: tool calls are guarded but not exported (npm install @opentelemetry/sdk-node, or register an SDK before loopguard)';

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

/** Where the spans go, in words: the OTLP traces endpoint, a provider of the app's, or nowhere. */
function destinationOf(env: Record<string, string | undefined>, sdk: boolean, disabled: boolean) {
  if (disabled) return 'export off (OTEL_SDK_DISABLED=true)';
  if (!sdk) return "spans to the app's own tracer provider";
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter && exporter !== 'otlp') return `traces exporter ${exporter}`;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || 'http://localhost:4318';
  const protocol = env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/protobuf';
  const endpoint = traces || (protocol === 'grpc' ? base : `${base.replace(/\/$/, '')}/v1/traces`);
  return `traces to ${endpoint} (${protocol})`;
}

const NOTICE_DELAY_MS = 2000;

/** The OTLP endpoint of a signal as the SDK's exporters resolve it from the environment. */
function otlpEndpoint(env: Record<string, string | undefined>, signal: 'traces' | 'metrics') {
  const own = env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`]?.trim();
  if (own) return own;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || 'http://localhost:4318';
  return env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() === 'grpc'
    ? base
    : `${base.replace(/\/$/, '')}/v1/${signal}`;
}

/** What went wrong with an export, in words: the HTTP status, the socket error, or the message. */
function failureOf(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | null;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (typeof e?.code === 'number') return `HTTP ${e.code}${message ? ` (${message})` : ''}`;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return message;
}

/**
 * Reports the first failed export of each signal once on stderr, with its endpoint and status,
 * whatever `OTEL_LOG_LEVEL` says (without it the SDK says nothing, and an agent feeding a
 * dashboard that is down, or that needs a token, looks healthy). Silent with `LOOPGUARD_QUIET=1`.
 */
function exportFailureReporter(
  env: Record<string, string | undefined>,
): (error: unknown, signal?: 'traces' | 'metrics') => void {
  const quiet = ['1', 'true'].includes(env.LOOPGUARD_QUIET?.trim().toLowerCase() ?? '');
  const said = new Set<string>();
  return (error, known) => {
    if (quiet) return;
    try {
      const text = `${String((error as { message?: unknown } | null)?.message ?? '')}`;
      const signal = known ?? (/metric/i.test(text) ? 'metrics' : 'traces');
      if (said.has(signal)) return;
      said.add(signal);
      process.stderr.write(
        `loopguard: export of ${signal} to ${otlpEndpoint(env, signal)} failed: ${failureOf(error)} (said once)\n`,
      );
    } catch {
      // a notice only
    }
  };
}

function isExportFailure(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown } | null;
  if (e?.name === 'OTLPExporterError') return true;
  return typeof e?.message === 'string' && /export|ECONNREFUSED|ENOTFOUND/i.test(e.message);
}

/**
 * Says once on stderr that loopguard is active, where the spans go and which frameworks it
 * patched: just after the first framework is patched (the app's other imports then load in the
 * same turn), or after a moment or at exit when none is. Silent with `LOOPGUARD_QUIET=1`.
 */
function announce(
  env: Record<string, string | undefined>,
  instrumentation: LoopguardInstrumentation,
  destination: string,
): void {
  const quiet = env.LOOPGUARD_QUIET?.trim().toLowerCase();
  if (quiet === '1' || quiet === 'true') return;
  const patched = new Set<string>();
  let said = false;
  const say = () => {
    if (said) return;
    said = true;
    const frameworks = patched.size > 0 ? [...patched].join(', ') : 'none loaded yet';
    try {
      process.stderr.write(
        `loopguard: active; ${destination}; frameworks patched: ${frameworks} (LOOPGUARD_QUIET=1 silences this)\n`,
      );
    } catch {
      // a notice only
    }
  };
  onFrameworkPatched(instrumentation, (module) => {
    const first = patched.size === 0;
    patched.add(module);
    if (first && !said) setImmediate(say).unref?.();
  });
  setTimeout(say, NOTICE_DELAY_MS).unref();
  process.once('beforeExit', say);
}

/**
 * What `register` does: creates the default guard, patches the agent frameworks, and starts the
 * app's OpenTelemetry Node SDK (`@opentelemetry/sdk-node`, an optional peer; OTLP export
 * configured by the standard `OTEL_*` variables) unless a global tracer or meter provider is
 * already registered or `OTEL_SDK_DISABLED=true`. Without either, it says so once on stderr.
 * Loop guarding stays on in every case.
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
  let announced = false;
  const announceOnce = (destination: string) => {
    if (announced) return;
    announced = true;
    try {
      announce(env, instrumentation, destination);
    } catch {
      // a notice only
    }
  };
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  let sdk: NodeSDK | undefined;
  let noSdk = false;
  const reportExport = exportFailureReporter(env);
  if (!disabled && !hasGlobalProvider()) {
    try {
      const loaded = loadNodeSdk();
      if (loaded) {
        // before start(): the SDK patches the modules already loaded right away
        announceOnce(destinationOf(env, true, false));
        try {
          const logging = loaded.core?.loggingErrorHandler();
          loaded.core?.setGlobalErrorHandler((error) => {
            if (isExportFailure(error)) reportExport(error);
            logging?.(error);
          });
        } catch (error) {
          diag.debug('loopguard: export failures are reported through diag only', error);
        }
        sdk = new loaded.sdk.NodeSDK({ instrumentations: [instrumentation] });
        sdk.start();
      } else {
        process.stderr.write(`${NO_SDK_MESSAGE}\n`);
        noSdk = true;
      }
    } catch (error) {
      diag.warn('loopguard: the OpenTelemetry SDK could not start; guarding without export', error);
      sdk = undefined;
    }
  }
  if (!sdk) {
    announceOnce(noSdk ? 'no export (no OpenTelemetry SDK)' : destinationOf(env, false, disabled));
    applyLogLevel(env);
    registerInstrumentations({ instrumentations: [instrumentation] });
  }
  for (const [message, error] of early) diag.warn(message, ...(error === undefined ? [] : [error]));

  let stopping: Promise<void> | undefined;
  const safely = (what: string, work: () => Promise<void>) =>
    work().catch((error: unknown) => {
      if (sdk && isExportFailure(error)) reportExport(error);
      diag.warn(`loopguard: ${what} failed`, error);
    });
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
