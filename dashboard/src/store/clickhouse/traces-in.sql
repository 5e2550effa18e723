-- The way in for spans, so that a span sent again (an exporter's retry, in the same batch or in
-- one composed differently) is stored and counted once. store.insert writes here, and so do
-- Collectors given `traces_table_name: loopguard_traces_in`. The table keeps nothing (Null
-- engine); its view passes each span on into otel_traces, whose own views then fill the counters
-- and rollups, so they see each span once too.
-- A span is passed on unless its (TraceId, SpanId) came earlier in the same block or is stored
-- already. A re-sent span has the service, name and start it had, so its stored copy is looked up
-- through otel_traces' sort key (ServiceName, SpanName, toDateTime(Timestamp)): a few granules
-- per insert, however large the table. Inside the view, every `FROM loopguard_traces_in`, in the
-- subqueries too, reads the inserted block.
-- Exact for a retry whose first copy is committed (and, with replicas, replicated to the replica
-- taking the retry) when the retry's INSERT starts: docs/scaling.md has the full guarantee.
CREATE TABLE IF NOT EXISTS loopguard_traces_in AS otel_traces ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS loopguard_traces_in_mv TO otel_traces AS
SELECT * FROM loopguard_traces_in
WHERE (TraceId, SpanId) NOT IN (
    SELECT TraceId, SpanId FROM otel_traces
    WHERE (ServiceName, SpanName, toDateTime(Timestamp)) IN (
            SELECT ServiceName, SpanName, toDateTime(Timestamp) FROM loopguard_traces_in)
        AND (TraceId, SpanId) IN (SELECT TraceId, SpanId FROM loopguard_traces_in))
LIMIT 1 BY TraceId, SpanId;
