import type { LoopAction } from '../../store/types.js';
import { ACTIONS, action, search, service, tool } from './filters.js';
import { PRESETS, type RangePreset, range, rangeParams, type TimeRange } from './range.js';

const DEFAULT_PRESET: RangePreset = '24h';
const DEFAULT_RANGE: TimeRange = { kind: 'preset', preset: DEFAULT_PRESET };

/** The range and filters as hash query parameters (defaults left out). */
export function viewParams(): Record<string, string> {
  const r = range.value;
  const out: Record<string, string> = {};
  if (r.kind === 'custom') {
    out.from = String(r.from);
    out.to = String(r.to);
  } else if (r.preset !== DEFAULT_PRESET) out.range = r.preset;
  if (service.value) out.service = service.value;
  if (tool.value) out.tool = tool.value;
  if (action.value) out.action = action.value;
  if (search.value) out.search = search.value;
  return out;
}

function rangeOf(params: URLSearchParams): TimeRange {
  const from = Number(params.get('from'));
  const to = Number(params.get('to'));
  if (params.has('from') && params.has('to') && Number.isFinite(from) && from < to) {
    return { kind: 'custom', from, to };
  }
  const preset = params.get('range');
  return PRESETS.includes(preset as RangePreset)
    ? { kind: 'preset', preset: preset as RangePreset }
    : DEFAULT_RANGE;
}

/** Sets the range and filters from hash query parameters (absent ones to their defaults). */
export function applyViewParams(params: URLSearchParams): void {
  const next = rangeOf(params);
  const same = JSON.stringify(rangeParams(next)) === JSON.stringify(rangeParams(range.value));
  if (!same) range.value = next;
  service.value = params.get('service') ?? '';
  tool.value = params.get('tool') ?? '';
  const a = params.get('action') ?? '';
  action.value = (ACTIONS as readonly string[]).includes(a) ? (a as LoopAction) : '';
  search.value = params.get('search') ?? '';
}
