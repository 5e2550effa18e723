/**
 * `node --import @loopguard/otel/register app.mjs` (ESM or CommonJS apps): guards the tool calls of
 * the agent frameworks the app loads and exports spans and metrics over OTLP, without code
 * changes. Telemetry is flushed on normal exit, SIGTERM and SIGINT, and before the process ends
 * on an uncaught error, each time for at most 3 s.
 */
import { register as registerLoader } from 'node:module';
import { inspect } from 'node:util';
import { diag } from '@opentelemetry/api';
import { INSTRUMENTED_MODULES } from './instrumentation.js';
import { type LoopguardHandle, startLoopguard } from './setup.js';

function registerEsmHook(): void {
  try {
    registerLoader('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
      data: { include: [...INSTRUMENTED_MODULES] },
    });
  } catch (error) {
    diag.warn('loopguard: ESM loader hook unavailable; only CommonJS modules are patched', error);
  }
}

/**
 * Longest wait for the export when the process exits, is signalled or goes down on an uncaught
 * error: an OTLP endpoint that is down or never answers must not hold the app (the exporters
 * retry until their own timeouts, 10 s and more).
 */
const EXIT_FLUSH_MS = 3000;

/** Shuts down, waiting at most EXIT_FLUSH_MS; resolves true when the shutdown finished. */
function shutdownWithin(handle: LoopguardHandle): Promise<boolean> {
  const timer = new Promise<boolean>((resolve) =>
    setTimeout(() => resolve(false), EXIT_FLUSH_MS).unref(),
  );
  return Promise.race([handle.shutdown().then(() => true), timer]).then((finished) => {
    if (!finished) {
      diag.warn(
        `loopguard: the export did not finish within ${EXIT_FLUSH_MS} ms at exit; the spans and metrics not sent yet are dropped`,
      );
    }
    return finished;
  });
}

function onExit(handle: LoopguardHandle): void {
  process.once('beforeExit', () => {
    // The export alone keeps the process alive now: past the bound, end it as it would have ended.
    void shutdownWithin(handle).then((finished) => {
      if (!finished) process.exit();
    });
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // Counted now: an app's own `once` handler is gone by the time the flush is done.
      const handledByApp = process.listenerCount(signal) > 0;
      void shutdownWithin(handle).finally(() => {
        // Nobody else handles the signal: let it terminate the process as it would have.
        if (!handledByApp) process.kill(process.pid, signal);
      });
    });
  }
  // An uncaught error (a LoopHaltError nobody catches included) would end the process before the
  // spans that show it are exported. Unless the app handles such errors itself, print it as Node
  // would, flush (at most EXIT_FLUSH_MS) and exit with code 1.
  const onUncaught = (error: unknown) => {
    if (process.listenerCount('uncaughtException') > 1) return;
    process.removeListener('uncaughtException', onUncaught);
    process.stderr.write(`${inspect(error)}\n\nNode.js ${process.version}\n`);
    process.exitCode = 1;
    void shutdownWithin(handle).finally(() => process.exit(1));
  };
  process.on('uncaughtException', onUncaught);
}

function start(): LoopguardHandle | undefined {
  try {
    return startLoopguard();
  } catch (error) {
    // Never stop the app from starting: it runs as it would without loopguard.
    diag.warn('loopguard: register failed; the app runs without loopguard', error);
    return undefined;
  }
}

registerEsmHook();
const started = start();
if (started) onExit(started);
const handle = started ?? { forceFlush: async () => {}, shutdown: async () => {} };

/** Flushes spans and metrics now (never rejects). */
export const forceFlush: () => Promise<void> = handle.forceFlush;
/** Flushes and shuts the SDK down (idempotent); call it before an explicit `process.exit()`. */
export const shutdown: () => Promise<void> = handle.shutdown;
