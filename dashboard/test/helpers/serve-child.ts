// Child process for the durability test: serves a dashboard on a DuckDB file and prints its URL.
import { startDashboard } from '../../src/server/index.js';

const db = process.argv[2];
if (!db) throw new Error('usage: serve-child.ts <db file>');
const running = await startDashboard({ port: 0, db });
process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
