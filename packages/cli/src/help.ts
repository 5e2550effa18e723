/** The usage lines of each command, shared by the general and the command's own help. */
const USAGE = {
  replay: `  loopguard replay FILE.jsonl [--config F] [--json] [--all]
  loopguard replay --otlp FILE.json [--config F] [--json] [--all]`,
  eval: `  loopguard eval FILE|FOLDER... --labels LABELS.json [--config F]... [--format F]
                 [--json] [--examples] [--sweep]`,
  config: `  loopguard config check [FILE]`,
  dashboard: `  loopguard dashboard [--port 4318] [--host 127.0.0.1] [--allowed-host NAME]
                      [--db .loopguard/loopguard.duckdb] [--retention DURATION] [--token T]
                      [--store clickhouse://...] [--prices FILE] [--config F]
                      [--no-detect] [--detect-journal FILE]`,
  demo: `  loopguard demo [--port 4318] [--host 127.0.0.1] [--db .loopguard/demo.duckdb]
                 [--interval-ms 1500]`,
};

/** `loopguard --help`: every command in short. */
export const GENERAL_HELP = `loopguard — catch LLM agents repeating themselves

Usage:
${USAGE.replay}
${USAGE.eval}
${USAGE.config}
${USAGE.dashboard}
${USAGE.demo}
  loopguard --help | --version
  loopguard COMMAND --help       the usage and options of one command

replay    runs a recorded session through the repetition engine. Input lines are calls
          {"scope"?, "tool", "args"?, "ok"?, "result"?, "ran"?} or {"reset": "<scope>"};
          --otlp reads an OTLP JSON trace export whose spans carry captured arguments.
          --json prints one JSON line per call; otherwise a table of the calls that got
          an action (all calls with --all) and a summary. Exit 2 if some lines were bad.
eval      replays labelled runs (replay JSONL, OTLP JSON, chat transcripts) with each
          configuration and two peer rules, and prints how many stuck runs each catches
          and how many healthy runs it disturbs.
config    validates a config file strictly and names each bad key and value.
dashboard starts the OTLP/HTTP receiver, the store, the UI and /metrics; it keeps spans
          for good unless --retention (e.g. 7d, 24h, 90m) is given.
demo      starts the dashboard and a scripted looping agent feeding it.
`;

/** The commands that have their own `--help`. */
export type HelpCommand = 'replay' | 'eval' | 'config' | 'dashboard' | 'demo';

/** `loopguard <command> --help`: the usage and options of one command. */
export const COMMAND_HELP: Record<HelpCommand, string> = {
  replay: `Usage:
${USAGE.replay}

Runs a recorded session through the repetition engine and shows what it decides.
Input lines are calls {"scope"?, "tool", "args"?, "ok"?, "result"?, "ran"?} or
{"reset": "<scope>"}; "ran": false marks a call that was attempted but never ran.
A line with another key (a typo such as "arg") is reported as bad, not replayed.

Options:
  --otlp        FILE is an OTLP JSON trace export whose spans carry captured arguments
  --config F    engine config file (JSON or YAML); an invalid one stops the replay (exit 1)
  --json        one JSON line per call instead of the table
  --all         list every call in the table, not only those that got an action
  -h, --help    this help

Exit codes: 0 ok, 1 bad usage or config, 2 some input lines were bad (the rest replayed).
`,
  eval: `Usage:
${USAGE.eval}

Replays every labelled run with each configuration, as a replay with that --config
would decide, and prints per configuration, side by side: stuck runs flagged and
stopped, healthy (and resolved) runs warned and stopped, the median first finding
relative to the labelled onset, and the axes and tools behind the healthy runs
warned or stopped; the same for two peer rules as baselines (gemini-cli: 5 identical
calls in a row; openhands: the StuckDetector's rules for tool calls). A run counts
as stopped at its first block or halt; nothing after it is looked at.

Inputs: files, or folders (their .jsonl, .ndjson and .json files). Each file's format
is recognised: replay JSONL, an OTLP JSON trace export, or chat transcripts in the
OpenAI messages shape (assistant tool_calls answered by tool messages), one
conversation per file or one per line. A run is one scope (an OTLP trace or
conversation id; a chat conversation's "scope" or "id", else the file's name, with
:LINE for one conversation per line). A user message after a tool call is a new turn.

Labels: {"labels": {"<scope>": {"label": "stuck" | "healthy" | "limit_norep",
"onset"?: N, "resolved"?: bool, "source"?: S, "n_calls"?: N}}}; figures are given
per source too. Runs without a label are left out; limit_norep runs are shown apart.

Options:
  --labels F      the labels file (required)
  --config F      an engine config file (JSON or YAML); repeat for more configurations.
                  Default: the shipped default (hard stop off) and hard-stop configs
  --format F      read every input as replay, otlp or chat instead of recognising it
  --json          the figures as one JSON document
  --examples      also list the healthy runs broken (stopped; warned when the
                  configuration cannot stop) and the stuck runs missed, with the call
                  that decided
  --sweep         also try guardrails.hardStopAfter settings (a grid per axis) on the
                  labelled runs, for each configuration with hard stop on (else the first,
                  hard stop turned on), and list those no other setting beats: the most
                  stuck runs stopped for each count of healthy and resolved runs stopped
  -h, --help      this help

Exit codes: 0 ok, 1 bad usage, config or labels file, 2 some files, lines or labels
were bad (each named on stderr with its line; the rest was evaluated).
`,
  config: `Usage:
${USAGE.config}

Validates a config file strictly and names each bad key and value. Without FILE it
checks the file loopguard would load: LOOPGUARD_CONFIG, else loopguard.config.json
or .yaml in the working directory.

Options:
  -h, --help    this help

Exit codes: 0 valid, 1 missing file or problems found.
`,
  dashboard: `Usage:
${USAGE.dashboard}

Starts the OTLP/HTTP receiver (POST /v1/traces), the store, the UI, the JSON API and
/metrics; runs until Ctrl-C.

Options:
  --port N              port to listen on (default 4318; 0 picks a free one)
  --host H              address to bind (default 127.0.0.1)
  --allowed-host NAME   another Host name to answer besides loopback (repeatable,
                        comma-separated; or LOOPGUARD_ALLOWED_HOSTS)
  --db FILE             DuckDB file (default .loopguard/loopguard.duckdb)
  --retention DURATION  drop spans older than this (e.g. 7d, 24h, 90m; default: keep all)
  --token T             require this bearer token on ingest, the API and /metrics
                        (default: LOOPGUARD_TOKEN)
  --store URL           read a ClickHouse store (clickhouse://user:pass@host:8123/db)
                        instead of the DuckDB file
  --max-body-bytes N    largest OTLP request body after decompression (default
                        20971520, 20 MiB; 413 beyond)
  --prices FILE         price table (JSON or YAML: model -> { input, output,
                        cached_input } USD per million tokens) for "spent in loops"
  --config F            engine config file for the loops the dashboard detects itself in
                        tool spans of agents without loopguard (AI SDK, OpenInference,
                        OpenLLMetry, GenAI conventions); default: discovered as the agents'
  --no-detect           store such spans as they are, undecided
  --detect-journal FILE where such spans wait to be decided, written before each
                        request is answered (default: beside the DuckDB file,
                        <db>.detect.jsonl; with --store clickhouse, none unless given)
  -h, --help            this help
`,
  demo: `Usage:
${USAGE.demo}

Starts the dashboard and the scripted looping agent (examples/looping-agent) feeding
it, until Ctrl-C.

Options:
  --port N           port of the dashboard (default 4318)
  --host H           address to bind (default 127.0.0.1)
  --db FILE          DuckDB file (default .loopguard/demo.duckdb)
  --interval-ms MS   pause between the agent's runs (default 1500)
  -h, --help         this help
`,
};

/** The help of `command` when it has its own, else the general help. */
export function helpFor(command: string | undefined): string {
  return command !== undefined && Object.hasOwn(COMMAND_HELP, command)
    ? COMMAND_HELP[command as HelpCommand]
    : GENERAL_HELP;
}
