/** Instrumentation scope version of @loopguard/otel. */
export const VERSION = '0.1.0';
