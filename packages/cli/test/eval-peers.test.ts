import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvalReport } from '../src/eval/index.js';
import { type Call, evaluate, folder, jsonl } from './eval-fixtures.js';

/** Each run labelled healthy: where each peer rule stops it (the runs it broke, from --examples). */
async function peerStops(lines: readonly (Call | { reset: string })[]) {
  const scopes = [...new Set(lines.map((l) => ('reset' in l ? l.reset : l.scope)))];
  const dir = folder({
    'runs.jsonl': jsonl(lines),
    'labels.json': JSON.stringify({
      labels: Object.fromEntries(scopes.map((s) => [s, { label: 'healthy' }])),
    }),
  });
  const r = await evaluate({
    inputs: [join(dir, 'runs.jsonl')],
    labels: join(dir, 'labels.json'),
    json: true,
    examples: true,
  });
  expect(r.stderr).toBe('');
  const { examples } = JSON.parse(r.stdout) as EvalReport;
  const stops = (peer: string) =>
    Object.fromEntries(
      examples![peer]!.broken.map((e) => [e.scope, `${e.moment!.axis}@${e.moment!.call}`]),
    );
  return { gemini: stops('gemini-cli'), openhands: stops('openhands') };
}

const c = (scope: string, tool: string, args: unknown, result: string, ok = true): Call => ({
  scope,
  tool,
  args,
  ok,
  result,
});
const each = <T>(n: number, make: (i: number) => T): T[] =>
  Array.from({ length: n }, (_, i) => make(i));

describe('the peer rules on tool calls', () => {
  it('Gemini CLI: 5 identical calls in a row (name and arguments), whatever they return; a new turn starts over', async () => {
    const { gemini } = await peerStops([
      ...each(5, (i) => c('five', 'read', { path: 'a', n: 1 }, `changing ${i}`)),
      // keys in another order are the same arguments
      ...each(4, () => c('keys', 'read', { n: 1, path: 'a' }, 'same')),
      c('keys', 'read', '{"path":"a","n":1}', 'same'),
      ...each(4, () => c('broken', 'read', { path: 'a' }, 'same')),
      c('broken', 'read', { path: 'b' }, 'same'),
      ...each(4, () => c('broken', 'read', { path: 'a' }, 'same')),
      ...each(3, () => c('turns', 'read', { path: 'a' }, 'same')),
      { reset: 'turns' },
      ...each(4, () => c('turns', 'read', { path: 'a' }, 'same')),
    ]);
    expect(gemini).toEqual({ five: 'identical_calls@5', keys: 'identical_calls@5' });
  });

  it('OpenHands: 4 identical (action, observation) pairs, 3 identical failing actions, or A B A B A B', async () => {
    const { openhands } = await peerStops([
      ...each(4, () => c('pairs', 'grep', { p: 'x' }, 'same')),
      // the same action with other results is no loop to OpenHands
      ...each(6, (i) => c('results', 'grep', { p: 'x' }, `result ${i}`)),
      ...each(3, () => c('errors', 'edit', { path: 'a' }, 'Traceback', false)),
      // its errors need not be equal, only errors
      ...each(3, (i) => c('other-errors', 'edit', { path: 'a' }, `error ${i}`, false)),
      ...each(6, (i) => c('ab', 'grep', { p: i % 2 }, `r${i % 2}`)),
      ...each(6, (i) => c('ab-changing', 'grep', { p: i % 2 }, `r${i}`)),
    ]);
    expect(openhands).toEqual({
      pairs: 'repeating_action_observation@4',
      errors: 'repeating_action_error@3',
      'other-errors': 'repeating_action_error@3',
      ab: 'repeating_action_observation_pattern@6',
    });
  });

  it('OpenHands compares a shell command’s observations by exit status, and its failures are no error observations', async () => {
    const { openhands } = await peerStops([
      ...each(4, (i) => c('bash-outputs', 'bash', { command: 'pytest' }, `${i} passed`)),
      ...each(3, () => c('bash-fails', 'bash', { command: 'pytest' }, 'FAILED', false)),
      c('bash-exit', 'bash', { command: 'pytest' }, 'ok'),
      c('bash-exit', 'bash', { command: 'pytest' }, 'FAILED', false),
      ...each(2, () => c('bash-exit', 'bash', { command: 'pytest' }, 'ok')),
    ]);
    expect(openhands).toEqual({ 'bash-outputs': 'repeating_action_observation@4' });
  });
});
