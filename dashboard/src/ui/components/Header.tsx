import { useSignal } from '@preact/signals';
import { token, unauthorized } from '../models/api.js';
import { linkTo, route } from '../models/route.js';
import type { Route } from '../routes.js';
import { LiveToggle } from './LiveToggle.js';
import { RangePicker } from './RangePicker.js';
import { TokenPanel } from './TokenPanel.js';

const TABS: { route: Route; label: string; pages: Route['page'][] }[] = [
  { route: { page: 'overview' }, label: 'Overview', pages: ['overview'] },
  { route: { page: 'hotspots' }, label: 'Hotspots', pages: ['hotspots'] },
  { route: { page: 'sessions' }, label: 'Sessions', pages: ['sessions', 'session'] },
];

const TIMELINE_RANGE_NOTE = {
  text: 'not applied: whole session',
  title:
    "The time range applies to the overview and the lists; a session's timeline always shows all of its calls.",
};

/** Brand, page tabs, time range, live toggle and the token panel. */
export function Header() {
  const showToken = useSignal(false);
  const page = route.value.page;
  return (
    <header class="top">
      <div class="top-row">
        <a class="brand" href={linkTo({ page: 'overview' })}>
          <span class="brand-mark" aria-hidden="true">
            ⟳
          </span>
          loopguard
        </a>
        <nav class="tabs" aria-label="Pages">
          {TABS.map((t) => (
            <a
              key={t.label}
              href={linkTo(t.route)}
              aria-current={t.pages.includes(page) ? 'page' : undefined}
            >
              {t.label}
            </a>
          ))}
        </nav>
        <div class="spacer" />
        <RangePicker disabledNote={page === 'session' ? TIMELINE_RANGE_NOTE : undefined} />
        <LiveToggle />
        <button
          type="button"
          class={`token-button${token.value ? ' has-token' : ''}`}
          aria-expanded={showToken.value || unauthorized.value}
          onClick={() => {
            showToken.value = !showToken.value;
          }}
        >
          {token.value ? 'Token ✓' : 'Token'}
        </button>
      </div>
      {(showToken.value || unauthorized.value) && (
        <TokenPanel
          onClose={() => {
            showToken.value = false;
          }}
        />
      )}
    </header>
  );
}
