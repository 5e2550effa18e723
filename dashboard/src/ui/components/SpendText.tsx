import type { TokenSpend } from '../../api/types.js';
import { fmtCount, fmtInt, fmtUsd } from '../format.js';

/** Input plus output tokens of a spend. */
export function spendTokens(t: TokenSpend): number {
  return t.inputTokens + t.outputTokens;
}

/**
 * Tokens spent (input + output, then the money when a price table is loaded): "12.3K tokens ·
 * $0.42"; the split (input, cached, output, steps, unpriced steps) in the title. Text only.
 */
export function SpendText({ spend, testId }: { spend: TokenSpend; testId?: string }) {
  const title = [
    `${fmtInt(spend.inputTokens)} input tokens (${fmtInt(spend.cachedInputTokens)} cached)`,
    `${fmtInt(spend.outputTokens)} output tokens`,
    `${fmtInt(spend.steps)} model steps`,
    ...(spend.usd !== undefined && spend.unpricedSteps > 0
      ? [`${fmtInt(spend.unpricedSteps)} steps without a price for their model`]
      : []),
  ].join('\n');
  return (
    <span class="spend" title={title} data-testid={testId}>
      {fmtCount(spendTokens(spend))} tokens
      {spend.usd !== undefined && ` · ${fmtUsd(spend.usd)}`}
    </span>
  );
}
