import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@loopguard\/engine$/, replacement: src('./packages/engine/src/index.ts') },
      { find: /^@loopguard\/otel$/, replacement: src('./packages/otel/src/index.ts') },
      {
        find: /^@loopguard\/dashboard\/otlp$/,
        replacement: src('./dashboard/src/otlp/index.ts'),
      },
    ],
  },
  test: {
    // CI asks for a JSON report too, to print a closing 'N passed, N failed' line.
    ...(process.env.LOOPGUARD_TEST_REPORT
      ? { reporters: ['default', 'json'], outputFile: { json: process.env.LOOPGUARD_TEST_REPORT } }
      : {}),
    include: [
      'packages/*/test/**/*.test.ts',
      'dashboard/test/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
      'prometheus/test/**/*.test.ts',
      'grafana/test/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
