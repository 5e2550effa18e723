import type { LoopSpend, ModelPrice, TokenSpend } from '../../api/types.js';
import { toNumber } from './rows.js';

type Row = Record<string, unknown>;

/** A model step of a flagged call, as both stores read it (one row per step and hotspot/scope). */
interface Step {
  service: string;
  tool: string;
  signature: string;
  scope: string;
  step: string;
  model: string;
  input: number;
  output: number;
  cached: number;
}

function empty(): TokenSpend {
  return { steps: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, unpricedSteps: 0 };
}

/**
 * The USD cost of one step's tokens; undefined without a price for its model. A model named with
 * a provider or gateway prefix (`openai/gpt-4o`, as AI SDK gateway ids are) takes the price of
 * its last part when the table has no entry for the whole name.
 */
function stepUsd(s: Step, prices: ReadonlyMap<string, ModelPrice> | undefined): number | undefined {
  const p = prices?.get(s.model) ?? prices?.get(s.model.slice(s.model.lastIndexOf('/') + 1));
  if (!p) return undefined;
  const cached = Math.min(s.cached, s.input);
  return (
    ((s.input - cached) * p.input + cached * (p.cachedInput ?? p.input) + s.output * p.output) / 1e6
  );
}

function add(t: TokenSpend, s: Step, usd: number | undefined, priced: boolean): void {
  t.steps++;
  t.inputTokens += s.input;
  t.outputTokens += s.output;
  t.cachedInputTokens += s.cached;
  if (usd === undefined) t.unpricedSteps++;
  else t.usd = (t.usd ?? 0) + usd;
  if (priced && t.usd === undefined) t.usd = 0;
}

/**
 * LoopSpend from rows of flagged calls grouped by (service, tool, signature, scope, step) with the
 * step's tokens (`service`, `tool`, `signature`, `scope`, `step`, `model`, `input`, `output`,
 * `cached`): a step counts once overall, once per hotspot and once per session it touches.
 * `limit` bounds the hotspot and session lists.
 */
export function loopSpend(
  rows: readonly Row[],
  prices: ReadonlyMap<string, ModelPrice> | undefined,
  limit = 500,
): LoopSpend {
  const priced = prices !== undefined;
  const total = empty();
  const seen = new Set<string>();
  const hotspots = new Map<string, { key: string[]; t: TokenSpend; seen: Set<string> }>();
  const sessions = new Map<string, { t: TokenSpend; seen: Set<string> }>();
  for (const r of rows) {
    const s: Step = {
      service: String(r.service ?? ''),
      tool: String(r.tool ?? ''),
      signature: String(r.signature ?? ''),
      scope: String(r.scope ?? ''),
      step: String(r.step ?? ''),
      model: String(r.model ?? ''),
      input: toNumber(r.input),
      output: toNumber(r.output),
      cached: toNumber(r.cached),
    };
    const usd = stepUsd(s, prices);
    // a step id is unique within its service's runs
    s.step = `${s.service}\u0000${s.step}`;
    if (!seen.has(s.step)) {
      seen.add(s.step);
      add(total, s, usd, priced);
    }
    if (s.signature !== '') {
      const k = JSON.stringify([s.service, s.tool, s.signature]);
      let h = hotspots.get(k);
      if (!h) {
        h = { key: [s.service, s.tool, s.signature], t: empty(), seen: new Set() };
        hotspots.set(k, h);
      }
      if (!h.seen.has(s.step)) {
        h.seen.add(s.step);
        add(h.t, s, usd, priced);
      }
    }
    if (s.scope !== '') {
      let g = sessions.get(s.scope);
      if (!g) {
        g = { t: empty(), seen: new Set() };
        sessions.set(s.scope, g);
      }
      if (!g.seen.has(s.step)) {
        g.seen.add(s.step);
        add(g.t, s, usd, priced);
      }
    }
  }
  const tokens = (t: TokenSpend) => t.inputTokens + t.outputTokens;
  const byTokens = <T extends TokenSpend>(a: T, b: T) => tokens(b) - tokens(a);
  return {
    total,
    hotspots: [...hotspots.values()]
      .map(({ key: [service = '', tool = '', signature = ''], t }) => ({
        service,
        tool,
        signature,
        ...t,
      }))
      .sort(byTokens)
      .slice(0, limit),
    sessions: [...sessions]
      .map(([scope, g]) => ({ scope, ...g.t }))
      .sort(byTokens)
      .slice(0, limit),
    priced,
  };
}
