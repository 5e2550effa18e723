/** Shown when the range holds no tool calls: how to point an agent at this dashboard (its own origin). */
export function EmptyState({ filtered }: { filtered: boolean }) {
  return (
    <section class="empty-state" aria-label="No data">
      <h2>
        {filtered ? 'No tool calls match these filters' : 'No tool calls in this time range yet'}
      </h2>
      {filtered && <p>Widen the time range or clear the filters.</p>}
      <p>
        Send an agent's traces here: install loopguard's OpenTelemetry hook in the agent's project,
        then start the agent with the hook and this endpoint.
      </p>
      <pre>
        <code>
          {'# in the loopguard repository (its packages are not on npm):\n'}
          {'pnpm -C packages/engine pack --pack-destination /tmp/loopguard-packs\n'}
          {'pnpm -C packages/otel pack --pack-destination /tmp/loopguard-packs\n'}
          {"# in the agent's project:\n"}
          {'npm install /tmp/loopguard-packs/*.tgz @opentelemetry/api\n'}
          {`OTEL_SERVICE_NAME=my-agent OTEL_EXPORTER_OTLP_ENDPOINT=${location.origin} \\\n`}
          {'OTEL_METRICS_EXPORTER=none \\\n'}
          {'  node --import @loopguard/otel/register app.mjs'}
        </code>
      </pre>
      <p class="muted">
        The hook guards the tools of MCP clients, the AI SDK, OpenAI Agents and LangChain agents;
        wrap any other tool function with <code>guardTool</code> from <code>@loopguard/otel</code>.
      </p>
      <p class="muted">
        Any OTLP/HTTP exporter works (JSON or protobuf, <code>POST /v1/traces</code>). The dashboard
        receives traces only and derives loopguard's metrics from them at <code>/metrics</code>,
        hence <code>OTEL_METRICS_EXPORTER=none</code>. If the dashboard runs with{' '}
        <code>LOOPGUARD_TOKEN</code>, also set{' '}
        <code>OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer &lt;token&gt;"</code>. Tool calls
        show up here within a few seconds.
      </p>
    </section>
  );
}
