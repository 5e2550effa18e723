import type { SessionRow, TokenSpend } from '../../api/types.js';
import { fmtInt, fmtMs, fmtTime, plural } from '../format.js';
import { ActionBadge } from './ActionBadge.js';
import { SpendText } from './SpendText.js';

/**
 * Title and totals of one session: its enforced decisions, then those recorded in shadow mode,
 * which read "would have ..." (`shadow`: its calls were decided in shadow mode); `spent`: the
 * tokens of its flagged calls' model steps.
 */
export function SessionHeader({
  session,
  shadow,
  spent,
}: {
  session: SessionRow;
  shadow?: boolean;
  spent?: TokenSpend;
}) {
  const would = session.shadow;
  return (
    <header class="session-head">
      <h1 class="page-title">
        Session{' '}
        <code class="scope-title" data-testid="session-scope">
          {session.scope}
        </code>
      </h1>
      <div class="session-meta">
        <span class="badges">
          {shadow && <ActionBadge action="allow" label="shadow mode" />}
          {session.halted && <ActionBadge action="halt" label="halted" />}
          {session.blocks > 0 && (
            <ActionBadge action="block" label={`${fmtInt(session.blocks)} blocked`} />
          )}
          {session.warns > 0 && <ActionBadge action="warn" label={plural(session.warns, 'warn')} />}
          {session.nudges > 0 && (
            <ActionBadge action="nudge" label={plural(session.nudges, 'nudge')} />
          )}
          {would.halted && <ActionBadge action="halt" label="would have halted" />}
          {would.blocks > 0 && (
            <ActionBadge action="block" label={`would have ${fmtInt(would.blocks)} blocked`} />
          )}
          {would.warns > 0 && (
            <ActionBadge action="warn" label={`would have ${plural(would.warns, 'warn')}`} />
          )}
          {would.nudges > 0 && (
            <ActionBadge action="nudge" label={`would have ${plural(would.nudges, 'nudge')}`} />
          )}
          {session.worstAction === 'allow' && would.worstAction === 'allow' && (
            <ActionBadge action="allow" label="clean" />
          )}
        </span>
        <span>
          service <strong>{session.service}</strong>
        </span>
        {session.conversationId && (
          <span>
            conversation <code>{session.conversationId}</code>
          </span>
        )}
        <span>
          <strong data-testid="session-calls">{fmtInt(session.calls)}</strong>{' '}
          {session.calls === 1 ? 'call' : 'calls'}
        </span>
        <span>
          longest streak{' '}
          <strong data-testid="session-streak">{fmtInt(session.longestStreak)}</strong>
        </span>
        {spent && spent.steps > 0 && (
          <span>
            spent in loops <SpendText spend={spent} testId="session-spent" />
          </span>
        )}
        {session.calls > 0 && (
          <span>
            {fmtTime(session.start)} · {fmtMs(session.end - session.start)}
          </span>
        )}
      </div>
    </header>
  );
}
