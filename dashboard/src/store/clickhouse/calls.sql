-- The loopguard fields of every tool call, a narrow copy of otel_traces ordered by time, filled by
-- a materialized view. The store reads it for the partial minutes at both ends of a range
-- (rollups.sql has the whole minutes): otel_traces is sorted by service and span name first, so
-- any sub-minute range there reads a granule of every (service, span name) with the whole
-- attribute map, here a granule or two. deleteBefore trims it with the spans; like the rollups, it
-- sees each span once (traces-in.sql).
CREATE TABLE IF NOT EXISTS loopguard_calls (
    Timestamp DateTime64(9) CODEC(Delta, ZSTD(1)),
    ServiceName LowCardinality(String),
    ToolName LowCardinality(String),
    Signature String CODEC(ZSTD(1)),
    LoopAction LowCardinality(String),
    ActionRank Int8,
    LoopScope String CODEC(ZSTD(1)),
    ConversationId String CODEC(ZSTD(1)),
    Streak Int32,
    LoopCount Int32,
    Duration UInt64 CODEC(ZSTD(1)),
    ToolArgs String CODEC(ZSTD(1)),
    NudgeFindings UInt16,
    WarnFindings UInt16,
    BlockFindings UInt16,
    HaltFindings UInt16,
    Shadow Bool
) ENGINE = MergeTree
PARTITION BY toDate(Timestamp)
ORDER BY Timestamp
SETTINGS non_replicated_deduplication_window = 1000;

-- Finding counts per call (derive.sql's Findings), added after the first release: a table created
-- before them gets the columns here; its view (created before them) leaves them 0.
ALTER TABLE loopguard_calls ADD COLUMN IF NOT EXISTS NudgeFindings UInt16;
ALTER TABLE loopguard_calls ADD COLUMN IF NOT EXISTS WarnFindings UInt16;
ALTER TABLE loopguard_calls ADD COLUMN IF NOT EXISTS BlockFindings UInt16;
ALTER TABLE loopguard_calls ADD COLUMN IF NOT EXISTS HaltFindings UInt16;
-- Shadow (loopguard.shadow), added later still: calls stored before it, or by a view created
-- before it, read as enforced (docs/scaling.md says how to recreate the views).
ALTER TABLE loopguard_calls ADD COLUMN IF NOT EXISTS Shadow Bool DEFAULT false;

CREATE MATERIALIZED VIEW IF NOT EXISTS loopguard_calls_mv TO loopguard_calls AS
SELECT Timestamp, ServiceName, ToolName, Signature, LoopAction, ActionRank, LoopScope,
    ConversationId, Streak, LoopCount, Duration, ToolArgs, NudgeFindings, WarnFindings,
    BlockFindings, HaltFindings, Shadow
FROM ({{derive}})
WHERE IsCall;
