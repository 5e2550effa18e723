-- The dashboard's decisions of spans it did not store itself (Collector-written tool calls it
-- decided, calls re-decided after a late call), one row per decided version of a span: its start,
-- its key, and the span's whole attribute map and events as the decision left them. otel_traces
-- stays as the Collector wrote it; every read of loopguard fields from otel_traces takes a span's
-- newest row here in place of its own maps (schema.ts overlaidSpans), and the calls table and
-- rollups of the touched minutes are re-filled from that.
-- Version is the time of writing (ms), newest wins: reads pick it by argMax per span, never
-- waiting for ReplacingMergeTree to merge the versions away (merges only reclaim the space).
-- Sorted by minute first: the reads that join this are a time range (a minute re-filled, a range
-- of calls, the detector's pass) or one trace, so a range is a primary-key range; one trace is
-- found through the bloom filter on TraceId, as in otel_traces. A span's versions share its
-- start, so (minute, TraceId, SpanId) is the span's key.
CREATE TABLE IF NOT EXISTS loopguard_decisions (
    Timestamp DateTime64(9) CODEC(Delta, ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    SpanAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    Events Nested (
        Timestamp DateTime64(9),
        Name LowCardinality(String),
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    Version UInt64,
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1
) ENGINE = ReplacingMergeTree(Version)
PARTITION BY toDate(Timestamp)
ORDER BY (toStartOfMinute(Timestamp), TraceId, SpanId);
