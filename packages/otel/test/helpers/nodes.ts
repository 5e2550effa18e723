import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A Node.js binary the install tests run under. */
export interface TestNode {
  node: string;
  version: string;
  major: number;
}

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * The Node binaries to test installs under: the one running the tests, then those
 * `scripts/setup.sh` installed from the npm registry's `node` package into `.nodes/<major>/`
 * (or the binaries listed in LOOPGUARD_TEST_NODES, comma-separated, instead).
 */
export function testNodes(): TestNode[] {
  const listed = (process.env.LOOPGUARD_TEST_NODES ?? '').split(',').filter(Boolean);
  const dir = join(ROOT, '.nodes');
  const installed = existsSync(dir)
    ? readdirSync(dir)
        .map((major) => join(dir, major, 'node_modules', 'node', 'bin', 'node'))
        .filter((node) => existsSync(node))
    : [];
  const nodes = [process.execPath, ...(listed.length > 0 ? listed : installed)];
  const seen = new Set<string>();
  return nodes.flatMap((node) => {
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    if (seen.has(version)) return [];
    seen.add(version);
    return [{ node, version, major: Number(/^v(\d+)/.exec(version)?.[1]) }];
  });
}

/** npm's own CLI script, to run it under another Node binary. */
export function npmCli(): string {
  const npm = execFileSync('which', ['npm'], { encoding: 'utf8' }).trim();
  return join(dirname(realpathSync(npm)), 'npm-cli.js');
}
