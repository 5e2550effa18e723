import { parseHostList } from './host-guard.js';
import { parseRetention } from './retention.js';
import type { DashboardOptions } from './types.js';

/**
 * Parses `loopguard dashboard` flags: --port --host --allowed-host (repeatable, or
 * comma-separated) --db --retention --token --store --max-body-bytes --prices --config --no-detect
 * --detect-journal.
 */
export function parseDashboardArgs(argv: readonly string[]): DashboardOptions {
  const out: DashboardOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '') throw new Error(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case '--port': {
        const v = value();
        const port = Number(v);
        if (!/^\d+$/.test(v) || port > 65535) throw new Error(`--port must be 0-65535, got "${v}"`);
        out.port = port;
        break;
      }
      case '--host':
        out.host = value();
        break;
      case '--allowed-host':
        out.allowedHosts = [...(out.allowedHosts ?? []), ...parseHostList(value())];
        break;
      case '--db':
        out.db = value();
        break;
      case '--retention': {
        const v = value();
        parseRetention(v);
        out.retention = v;
        break;
      }
      case '--token':
        out.token = value();
        break;
      case '--max-body-bytes': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1024)
          throw new Error(
            `--max-body-bytes must be a whole number of bytes, at least 1024, got "${v}"`,
          );
        out.maxBodyBytes = Number(v);
        break;
      }
      case '--store':
        out.storeUrl = value();
        break;
      case '--prices':
        out.prices = value();
        break;
      case '--config':
        out.config = value();
        break;
      case '--no-detect':
        out.detect = false;
        break;
      case '--detect-journal':
        out.detectJournal = value();
        break;
      default:
        throw new Error(`unknown dashboard option "${arg}"`);
    }
  }
  return out;
}
