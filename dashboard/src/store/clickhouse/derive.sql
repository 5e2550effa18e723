-- The loopguard fields of every otel_traces row, read from the exporter's maps (contract section 2).
-- Same rules as duckdb/write/span-fields.ts: a call is an execute_tool span or one with a loopguard.signature;
-- a call without loopguard.action is `allow`; the scope falls back to gen_ai.conversation.id.
-- Inlined as {{derive}} into the materialized views and the store's queries.
SELECT
    Timestamp,
    toUnixTimestamp64Milli(Timestamp) AS StartMs,
    TraceId,
    SpanId,
    ServiceName,
    Duration,
    SpanAttributes['gen_ai.operation.name'] AS Operation,
    SpanAttributes['loopguard.signature'] AS Signature,
    Operation = 'execute_tool' OR Signature != '' AS IsCall,
    multiIf(
        SpanAttributes['gen_ai.tool.name'] != '', SpanAttributes['gen_ai.tool.name'],
        startsWith(SpanName, 'execute_tool '), substring(SpanName, 14),
        position(Signature, ':') > 0, arrayStringConcat(arraySlice(splitByChar(':', Signature), 1, -1), ':'),
        ''
    ) AS ToolName,
    indexOf(['allow', 'nudge', 'warn', 'block', 'halt'], SpanAttributes['loopguard.action']) AS ActionIndex,
    if(ActionIndex > 0, SpanAttributes['loopguard.action'], if(IsCall, 'allow', '')) AS LoopAction,
    toInt8(greatest(toInt16(ActionIndex) - 1, 0)) AS ActionRank,
    SpanAttributes['loopguard.axis'] AS LoopAxis,
    if(mapContains(SpanAttributes, 'loopguard.scope'), SpanAttributes['loopguard.scope'],
        SpanAttributes['gen_ai.conversation.id']) AS LoopScope,
    SpanAttributes['gen_ai.conversation.id'] AS ConversationId,
    SpanAttributes['gen_ai.tool.call.arguments'] AS ToolArgs,
    -- Integers as duckdb/write/span-fields.ts reads them (parseInt, then 0 outside int32): the leading decimal
    -- digits after whitespace and a sign; the regular expression only for values that are not plain.
    arrayMap(v -> if(toInt32OrZero(v) != 0 OR v IN ('', '0'), toInt32OrZero(v),
            toInt32OrZero(extract(v, '^[\\s\\x{00A0}\\x{FEFF}\\x{2028}\\x{2029}\\x{000B}\\p{Zs}]*([+-]?[0-9]+)'))),
        [SpanAttributes['loopguard.streak'], SpanAttributes['loopguard.count'],
         SpanAttributes['loopguard.nudge.level']]) AS IntFields,
    IntFields[1] AS Streak,
    IntFields[2] AS LoopCount,
    IntFields[3] AS NudgeLevel,
    SpanAttributes['loopguard.outcome'] AS Outcome,
    SpanAttributes['loopguard.shadow'] = 'true' AS Shadow,
    SpanAttributes,
    arrayMap(t -> toUnixTimestamp64Milli(t), Events.Timestamp) AS EventTimes,
    Events.Name AS EventNames,
    Events.Attributes AS EventAttributes,
    arrayFilter(
        f -> f.2 IN ('nudge', 'warn', 'block', 'halt'),
        arrayMap(
            (n, a) -> (
                if(mapContains(a, 'loopguard.axis'), a['loopguard.axis'], LoopAxis),
                if(startsWith(n, 'loopguard.'), substring(n, 11), '')
            ),
            EventNames, EventAttributes
        )
    ) AS EventFindings,
    if(notEmpty(EventFindings), EventFindings,
        if(ActionRank > 0, [(LoopAxis, LoopAction)], [])) AS Findings,
    arrayCount(f -> f.2 = 'nudge', Findings) AS NudgeFindings,
    arrayCount(f -> f.2 = 'warn', Findings) AS WarnFindings,
    arrayCount(f -> f.2 = 'block', Findings) AS BlockFindings,
    arrayCount(f -> f.2 = 'halt', Findings) AS HaltFindings,
    -- the same split into enforced findings and shadow-mode ones, for the rollup views
    if(Shadow, 0, NudgeFindings) AS EnforcedNudges,
    if(Shadow, 0, WarnFindings) AS EnforcedWarns,
    if(Shadow, 0, BlockFindings) AS EnforcedBlocks,
    if(Shadow, 0, HaltFindings) AS EnforcedHalts,
    if(Shadow, NudgeFindings, 0) AS ShadowNudgeFindings,
    if(Shadow, WarnFindings, 0) AS ShadowWarnFindings,
    if(Shadow, BlockFindings, 0) AS ShadowBlockFindings,
    if(Shadow, HaltFindings, 0) AS ShadowHaltFindings
FROM otel_traces
