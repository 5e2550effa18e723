/**
 * `node --import @loopguard/otel/register app.mjs` (ESM or CommonJS apps): guards the tool calls of
 * the agent frameworks the app loads and exports spans and metrics over OTLP, without code
 * changes. Telemetry is flushed on normal exit, SIGTERM and SIGINT.
 */
import { register as registerLoader } from 'node:module';
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

function onExit(handle: LoopguardHandle): void {
  process.once('beforeExit', () => {
    void handle.shutdown();
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void handle.shutdown().finally(() => {
        // Nobody else handles the signal: let it terminate the process as it would have.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    });
  }
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
