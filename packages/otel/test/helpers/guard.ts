import type { TracerProvider } from '@opentelemetry/api';
import { createGuard, type Guard, type GuardOptions } from '../../src/index.js';

/** Options of a test guard: guard options plus the engine's hard-stop switch. */
export type TestGuardOptions = Partial<GuardOptions> & { hardStop?: boolean };

/** A guard on `tracerProvider` whose engine reads no config file and an empty environment. */
export function testGuard(tracerProvider: TracerProvider, options: TestGuardOptions = {}): Guard {
  const { hardStop = false, ...rest } = options;
  return createGuard({
    tracerProvider,
    engine: { configFile: false, env: {}, guardrails: { hardStop } },
    ...rest,
  });
}
