import type { PlannedCall } from './scripted-model.js';

/** The loops the example agent falls into, one per session. */
export type ScenarioName =
  | 'grep-loop'
  | 'ping-pong'
  | 'lint-loop'
  | 'failing-build'
  | 'dead-link'
  | 'stalled-poll';

/** A task the agent is given and the calls it (badly) makes for it. */
export interface Scenario {
  name: ScenarioName;
  task: string;
  plan: PlannedCall[];
}

const repeat = (call: PlannedCall, times: number): PlannedCall[] =>
  Array.from({ length: times }, () => ({ tool: call.tool, args: { ...call.args } }));

/** The scenarios in the order sessions take them. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'grep-loop',
    task: 'Find where request timeouts are handled.',
    plan: repeat({ tool: 'grep', args: { pattern: 'TODO', path: 'src' } }, 9),
  },
  {
    name: 'ping-pong',
    task: 'Compare the behaviour on main and on the fix branch.',
    plan: Array.from({ length: 14 }, (_, i) => ({
      tool: 'git_checkout',
      args: { branch: i % 2 === 0 ? 'main' : 'fix/timeouts' },
    })),
  },
  {
    name: 'lint-loop',
    task: 'Clean up the lint warnings in the API module.',
    plan: repeat({ tool: 'eslint', args: { path: 'src/api.ts' } }, 9),
  },
  {
    name: 'failing-build',
    task: 'Make the test suite pass.',
    plan: [
      ...repeat({ tool: 'bash', args: { command: 'npm test' } }, 3),
      { tool: 'bash', args: { command: 'npm test -- --reporter verbose' } },
      { tool: 'bash', args: { command: 'npx vitest run test/api.test.ts' } },
      { tool: 'bash', args: { command: 'npm test' } },
      { tool: 'bash', args: { command: 'npm run test:unit' } },
      { tool: 'bash', args: { command: 'npx vitest run' } },
      { tool: 'bash', args: { command: 'npm test -- --bail' } },
      { tool: 'bash', args: { command: 'npm test' } },
      { tool: 'bash', args: { command: 'npm run test:ci' } },
    ],
  },
  {
    name: 'dead-link',
    task: 'Check the pricing page for the enterprise plan.',
    plan: [
      ...repeat({ tool: 'browser_navigate', args: { url: 'https://example.test/pricing' } }, 7),
      { tool: 'grep', args: { pattern: 'enterprise', path: 'docs' } },
    ],
  },
  {
    name: 'stalled-poll',
    task: 'Wait for CI job 4711 and report the result.',
    plan: repeat({ tool: 'job_status', args: { job_id: '4711' } }, 28),
  },
];

/** How loopguard is configured for one session. */
export interface SessionPlan {
  scenario: Scenario;
  /** Blocks and halts enabled (every other session, alternating between laps of scenarios). */
  hardStop: boolean;
  /** With hard stop: throw `LoopHaltError` (the run ends) or hand the model the reason (it gives up). */
  onHalt: 'throw' | 'return';
}

/** Session `index` (0-based): its scenario and loopguard settings. */
export function sessionPlan(index: number): SessionPlan {
  const scenario = SCENARIOS[index % SCENARIOS.length]!;
  const lap = Math.floor(index / SCENARIOS.length);
  return {
    scenario,
    hardStop: (index + lap) % 2 === 1,
    onHalt: index % 4 === 3 ? 'return' : 'throw',
  };
}
