#!/usr/bin/env node
import { main } from '../dist/main.js';

// `loopguard replay ... | head`: the reader went away; stop quietly, as other command-line tools do
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`loopguard: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
