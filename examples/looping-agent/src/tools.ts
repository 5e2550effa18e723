import { type ToolSet, tool } from 'ai';
import { z } from 'zod';

/** A command that exited with a non-zero status. */
export class CommandFailedError extends Error {
  override readonly name = 'CommandFailedError';
  constructor(
    readonly command: string,
    readonly exitCode: number,
    output: string,
  ) {
    super(`${command}: exit code ${exitCode}\n${output}`);
  }
}

/** The page did not load. */
export class NavigationError extends Error {
  override readonly name = 'NavigationError';
}

/**
 * The simulated workspace the agent acts on: deterministic tools that behave like the real ones
 * agents loop on (a search that keeps finding the same lines, a dead link, a build that keeps
 * failing, a job whose progress stalls). `jobProgress` is per session.
 */
export function createTools(): ToolSet {
  let polls = 0;
  return {
    grep: tool({
      description: 'Search files for a pattern',
      inputSchema: z.object({ pattern: z.string(), path: z.string() }),
      execute: async ({ pattern, path }) =>
        `${path}/server.ts:41: // ${pattern}: handle timeouts\n${path}/client.ts:7: // ${pattern}: retry`,
    }),
    browser_navigate: tool({
      description: 'Open a URL in the browser',
      inputSchema: z.object({ url: z.string() }),
      execute: async ({ url }): Promise<string> => {
        throw new NavigationError(`HTTP 404 Not Found: ${url}`);
      },
    }),
    git_checkout: tool({
      description: 'Switch the working tree to a branch',
      inputSchema: z.object({ branch: z.string() }),
      execute: async ({ branch }) => `Switched to branch '${branch}'`,
    }),
    eslint: tool({
      description: 'Lint a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) =>
        `${path}\n  12:7  warning  'retries' is assigned a value but never used  no-unused-vars\n✖ 1 problem`,
    }),
    job_status: tool({
      description: 'Status of a CI job',
      inputSchema: z.object({ job_id: z.string() }),
      execute: async ({ job_id }) => {
        polls += 1;
        const percent = Math.min(polls, 6) * 10;
        return { job_id, state: 'running', progress: `${percent}%` };
      },
    }),
    bash: tool({
      description: 'Run a shell command',
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }): Promise<string> => {
        throw new CommandFailedError(
          command,
          1,
          'FAIL test/api.test.ts > returns 200\nTests: 1 failed',
        );
      },
    }),
  };
}
