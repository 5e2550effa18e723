-- Monotonic counters behind the dashboard's /metrics (contract section 4).
-- Materialized views fire on every INSERT into otel_traces (by a Collector or by store.insert)
-- and add to a SummingMergeTree; deleting spans (TTL, deleteBefore) never touches them.
-- Read with sum(Value) ... GROUP BY, since rows of one key merge only eventually.
-- Each span is counted once: spans come in through loopguard_traces_in (traces-in.sql), and the
-- deduplication window drops a view's block again when its INSERT into otel_traces is retried
-- with the same block (the view's block id derives from the inserted block's).
CREATE TABLE IF NOT EXISTS loopguard_counters (
    Metric LowCardinality(String),
    Service LowCardinality(String),
    Tool LowCardinality(String),
    Axis LowCardinality(String),
    Action LowCardinality(String),
    Reason LowCardinality(String),
    Value UInt64
) ENGINE = SummingMergeTree(Value)
ORDER BY (Metric, Service, Tool, Axis, Action, Reason)
SETTINGS non_replicated_deduplication_window = 1000;

-- Scopes that were ever halted (an enforced block or halt decision, not a shadow one); counted
-- with uniqExact per service. Shadow-mode calls (loopguard.shadow) count as shadow_tool_calls and
-- shadow_decisions.
CREATE TABLE IF NOT EXISTS loopguard_halted_scopes (
    Service LowCardinality(String),
    Scope String
) ENGINE = ReplacingMergeTree
ORDER BY (Service, Scope)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS loopguard_ingested_mv TO loopguard_counters AS
SELECT 'ingested_spans' AS Metric, '' AS Service, '' AS Tool, '' AS Axis, '' AS Action, '' AS Reason,
    count() AS Value
FROM otel_traces;

CREATE MATERIALIZED VIEW IF NOT EXISTS loopguard_tool_calls_mv TO loopguard_counters AS
SELECT if(Shadow, 'shadow_tool_calls', 'tool_calls') AS Metric, ServiceName AS Service,
    ToolName AS Tool, '' AS Axis, LoopAction AS Action, '' AS Reason, count() AS Value
FROM ({{derive}})
WHERE IsCall
GROUP BY Metric, Service, Tool, Action;

CREATE MATERIALIZED VIEW IF NOT EXISTS loopguard_decisions_mv TO loopguard_counters AS
SELECT if(Shadow, 'shadow_decisions', 'decisions') AS Metric, ServiceName AS Service,
    ToolName AS Tool, finding.1 AS Axis, finding.2 AS Action, '' AS Reason, count() AS Value
FROM ({{derive}})
ARRAY JOIN Findings AS finding
WHERE IsCall
GROUP BY Metric, Service, Tool, Axis, Action;

CREATE MATERIALIZED VIEW IF NOT EXISTS loopguard_halted_scopes_mv TO loopguard_halted_scopes AS
SELECT ServiceName AS Service, LoopScope AS Scope
FROM ({{derive}})
WHERE IsCall AND ActionRank >= 3 AND LoopScope != '' AND NOT Shadow;
