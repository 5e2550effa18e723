import type { DetectionInfo } from '../../api/types.js';
import { fmtCount, plural } from '../format.js';
import { apiUrl } from '../models/api.js';
import { useResource } from '../models/use-resource.js';

/**
 * Services whose tool calls reach the dashboard without arguments: they count per tool, but the
 * dashboard cannot tell repeats apart, so each row says how to turn capture on for its convention.
 */
export function DetectionNotice() {
  const info = useResource<DetectionInfo>(() => apiUrl('detection'));
  const rows = info.state.value.data?.uncaptured ?? [];
  if (rows.length === 0) return null;
  return (
    <section class="panel" aria-label="Services sending no arguments" data-testid="uncaptured">
      <header class="panel-head">
        <h2>Tool calls without arguments</h2>
      </header>
      <p class="muted">
        The dashboard detects loops in these services' spans itself (advisory: the agents were not
        told), but their tool calls carry no arguments, so they are counted per tool only.
      </p>
      <ul>
        {rows.map((r) => (
          <li key={`${r.service}|${r.source}`}>
            <strong>{r.service}</strong> ({r.source}, {plural(r.calls, 'call', fmtCount)}): {r.hint}
          </li>
        ))}
      </ul>
    </section>
  );
}
