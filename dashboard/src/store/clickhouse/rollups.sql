-- Per-minute rollups of tool calls, filled by materialized views on otel_traces. The store reads
-- them for the whole minutes of hotspots, sessions and the summary's session count when the
-- filter allows it, and loopguard_calls (calls.sql) for the partial minutes at both ends
-- (docs/scaling.md). deleteBefore trims them with the spans.
-- Like the counters, they see each span once (traces-in.sql, counters.sql).
CREATE TABLE IF NOT EXISTS loopguard_hotspots_1m (
    Minute DateTime CODEC(Delta, ZSTD(1)),
    ServiceName LowCardinality(String),
    ToolName LowCardinality(String),
    Signature String,
    LoopAction LowCardinality(String),
    Calls SimpleAggregateFunction(sum, UInt64),
    LongestStreak SimpleAggregateFunction(max, Int32),
    Sessions AggregateFunction(uniqExact, String),
    RepeatNs SimpleAggregateFunction(sum, UInt64),
    FirstSeen SimpleAggregateFunction(min, Int64),
    LastSeen SimpleAggregateFunction(max, Int64),
    SampleArgs SimpleAggregateFunction(max, String),
    KeyHash UInt64 MATERIALIZED cityHash64(ServiceName, ToolName, Signature),
    NudgeFindings SimpleAggregateFunction(sum, UInt64),
    WarnFindings SimpleAggregateFunction(sum, UInt64),
    BlockFindings SimpleAggregateFunction(sum, UInt64),
    HaltFindings SimpleAggregateFunction(sum, UInt64),
    ShadowNudges SimpleAggregateFunction(sum, UInt64),
    ShadowWarns SimpleAggregateFunction(sum, UInt64),
    ShadowBlocks SimpleAggregateFunction(sum, UInt64),
    ShadowHalts SimpleAggregateFunction(sum, UInt64)
) ENGINE = AggregatingMergeTree
PARTITION BY toDate(Minute)
ORDER BY (ServiceName, Minute, ToolName, Signature, LoopAction)
SETTINGS non_replicated_deduplication_window = 1000;

-- KeyHash: the hotspot's key in 8 bytes, so a page is chosen without reading or grouping the
-- strings of every row (hotspots.ts). This ALTER adds it to a table created before it; parts
-- written earlier compute it when read, until `ALTER TABLE ... MATERIALIZE COLUMN KeyHash`.
ALTER TABLE loopguard_hotspots_1m
    ADD COLUMN IF NOT EXISTS KeyHash UInt64 MATERIALIZED cityHash64(ServiceName, ToolName, Signature);

-- Enforced findings per kind and shadow-mode ones (loopguard.shadow) apart, added later: rows
-- stored before them count each call by its action and no shadow finding, as do the rows of a
-- view created before them (docs/scaling.md says how to recreate the views).
ALTER TABLE loopguard_hotspots_1m ADD COLUMN IF NOT EXISTS NudgeFindings SimpleAggregateFunction(sum, UInt64) DEFAULT if(LoopAction = 'nudge', Calls, 0);
ALTER TABLE loopguard_hotspots_1m ADD COLUMN IF NOT EXISTS WarnFindings SimpleAggregateFunction(sum, UInt64) DEFAULT if(LoopAction = 'warn', Calls, 0);
ALTER TABLE loopguard_hotspots_1m ADD COLUMN IF NOT EXISTS BlockFindings SimpleAggregateFunction(sum, UInt64) DEFAULT if(LoopAction = 'block', Calls, 0);
ALTER TABLE loopguard_hotspots_1m ADD COLUMN IF NOT EXISTS HaltFindings SimpleAggregateFunction(sum, UInt64) DEFAULT if(LoopAction = 'halt', Calls, 0);
ALTER TABLE loopguard_hotspots_1m ADD COLUMN IF NOT EXISTS ShadowNudges SimpleAggregateFunction(sum, UInt64);
ALTER TABLE loopguard_hotspots_1m ADD COLUMN IF NOT EXISTS ShadowWarns SimpleAggregateFunction(sum, UInt64);
ALTER TABLE loopguard_hotspots_1m ADD COLUMN IF NOT EXISTS ShadowBlocks SimpleAggregateFunction(sum, UInt64);
ALTER TABLE loopguard_hotspots_1m ADD COLUMN IF NOT EXISTS ShadowHalts SimpleAggregateFunction(sum, UInt64);

CREATE MATERIALIZED VIEW IF NOT EXISTS loopguard_hotspots_1m_mv TO loopguard_hotspots_1m AS
SELECT toStartOfMinute(Timestamp) AS Minute, ServiceName, ToolName, Signature, LoopAction,
    count() AS Calls, max(Streak) AS LongestStreak,
    uniqExactStateIf(LoopScope, LoopScope != '') AS Sessions,
    sumIf(Duration, LoopCount > 1) AS RepeatNs,
    min(StartMs) AS FirstSeen, max(StartMs) AS LastSeen, max(ToolArgs) AS SampleArgs,
    sum(EnforcedNudges) AS NudgeFindings, sum(EnforcedWarns) AS WarnFindings,
    sum(EnforcedBlocks) AS BlockFindings, sum(EnforcedHalts) AS HaltFindings,
    sum(ShadowNudgeFindings) AS ShadowNudges, sum(ShadowWarnFindings) AS ShadowWarns,
    sum(ShadowBlockFindings) AS ShadowBlocks, sum(ShadowHaltFindings) AS ShadowHalts
FROM ({{derive}})
WHERE IsCall AND Signature != ''
GROUP BY Minute, ServiceName, ToolName, Signature, LoopAction;

CREATE TABLE IF NOT EXISTS loopguard_sessions_1m (
    Minute DateTime CODEC(Delta, ZSTD(1)),
    ServiceName LowCardinality(String),
    LoopScope String,
    ToolName LowCardinality(String),
    Calls SimpleAggregateFunction(sum, UInt64),
    Nudges SimpleAggregateFunction(sum, UInt64),
    Warns SimpleAggregateFunction(sum, UInt64),
    Blocks SimpleAggregateFunction(sum, UInt64),
    Halts SimpleAggregateFunction(sum, UInt64),
    LongestStreak SimpleAggregateFunction(max, Int32),
    WorstRank SimpleAggregateFunction(max, Int8),
    ConversationId SimpleAggregateFunction(max, String),
    Start SimpleAggregateFunction(min, Int64),
    End SimpleAggregateFunction(max, Int64),
    NudgeFindings SimpleAggregateFunction(sum, UInt64),
    WarnFindings SimpleAggregateFunction(sum, UInt64),
    BlockFindings SimpleAggregateFunction(sum, UInt64),
    HaltFindings SimpleAggregateFunction(sum, UInt64),
    EnforcedRank SimpleAggregateFunction(max, Int8),
    ShadowRank SimpleAggregateFunction(max, Int8),
    ShadowNudges SimpleAggregateFunction(sum, UInt64),
    ShadowWarns SimpleAggregateFunction(sum, UInt64),
    ShadowBlocks SimpleAggregateFunction(sum, UInt64),
    ShadowHalts SimpleAggregateFunction(sum, UInt64)
) ENGINE = AggregatingMergeTree
PARTITION BY toDate(Minute)
ORDER BY (ServiceName, Minute, LoopScope, ToolName)
SETTINGS non_replicated_deduplication_window = 1000;

-- Findings per kind (a nudge beside a warn is still a nudge), added after the first release.
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS NudgeFindings SimpleAggregateFunction(sum, UInt64);
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS WarnFindings SimpleAggregateFunction(sum, UInt64);
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS BlockFindings SimpleAggregateFunction(sum, UInt64);
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS HaltFindings SimpleAggregateFunction(sum, UInt64);
-- The findings columns above count enforced findings; shadow-mode ones (loopguard.shadow) and the
-- strongest enforced and shadow actions apart, added later: rows stored before them, or by a view
-- created before them, read as enforced.
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS EnforcedRank SimpleAggregateFunction(max, Int8) DEFAULT WorstRank;
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS ShadowRank SimpleAggregateFunction(max, Int8);
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS ShadowNudges SimpleAggregateFunction(sum, UInt64);
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS ShadowWarns SimpleAggregateFunction(sum, UInt64);
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS ShadowBlocks SimpleAggregateFunction(sum, UInt64);
ALTER TABLE loopguard_sessions_1m ADD COLUMN IF NOT EXISTS ShadowHalts SimpleAggregateFunction(sum, UInt64);

CREATE MATERIALIZED VIEW IF NOT EXISTS loopguard_sessions_1m_mv TO loopguard_sessions_1m AS
SELECT toStartOfMinute(Timestamp) AS Minute, ServiceName, LoopScope, ToolName,
    count() AS Calls, countIf(LoopAction = 'nudge') AS Nudges, countIf(LoopAction = 'warn') AS Warns,
    countIf(LoopAction = 'block') AS Blocks, countIf(LoopAction = 'halt') AS Halts,
    max(Streak) AS LongestStreak, max(ActionRank) AS WorstRank, max(ConversationId) AS ConversationId,
    min(StartMs) AS Start, max(StartMs + intDiv(Duration, 1000000)) AS End,
    sum(EnforcedNudges) AS NudgeFindings, sum(EnforcedWarns) AS WarnFindings,
    sum(EnforcedBlocks) AS BlockFindings, sum(EnforcedHalts) AS HaltFindings,
    maxIf(ActionRank, NOT Shadow) AS EnforcedRank, maxIf(ActionRank, Shadow) AS ShadowRank,
    sum(ShadowNudgeFindings) AS ShadowNudges, sum(ShadowWarnFindings) AS ShadowWarns,
    sum(ShadowBlockFindings) AS ShadowBlocks, sum(ShadowHaltFindings) AS ShadowHalts
FROM ({{derive}})
WHERE IsCall AND LoopScope != ''
GROUP BY Minute, ServiceName, LoopScope, ToolName;
