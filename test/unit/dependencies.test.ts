import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/*
 * The dependencies package.json explains in its "//" field, checked against the lock file (what
 * `npm ci` installs, in CI and in the Docker image) and the installed tree:
 * - @slack/web-api, @slack/socket-mode, @slack/types and @slack/oauth, used by src/ beside Bolt, are one copy
 *   each, the one Bolt uses (a second copy would make `instanceof` checks and error codes differ
 *   between the bot's own calls and Bolt's);
 * - cron-parser is BullMQ's exact version (the bot validates digest schedules and computes their
 *   next run with it, as BullMQ's job scheduler does), one copy;
 * - the msgpackr-extract override pins the version in the lock, one msgpackr accepts.
 */

interface LockEntry {
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  dependencies: Record<string, string>;
  overrides: Record<string, string>;
  '//': Record<string, string>;
};
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** Every copy of `name` the lock installs: its path and version. */
function copies(name: string): Array<{ path: string; version: string }> {
  return Object.entries(lock.packages)
    .filter(([path]) => path === `node_modules/${name}` || path.endsWith(`/node_modules/${name}`))
    .map(([path, e]) => ({ path, version: e.version }));
}

/** Whether `version` (x.y.z) satisfies `range`: an exact version or a caret range (npm's `^`, major ≥ 1). */
function satisfies(version: string, range: string): boolean {
  const [v, r] = [version, range.replace(/^\^/, '')].map((s) => s.split('.').map(Number));
  if (!range.startsWith('^')) return version === range;
  if (v![0] !== r![0]) return false;
  for (let i = 1; i < 3; i++) if (v![i] !== r![i]) return v![i]! > r![i]!;
  return true;
}

const bolt = lock.packages['node_modules/@slack/bolt']!;
const SLACK_BESIDE_BOLT = ['@slack/web-api', '@slack/socket-mode', '@slack/types', '@slack/oauth'];

describe('dependencies', () => {
  it.each(SLACK_BESIDE_BOLT)(
    '%s: one copy, within the range Bolt asks for and the one package.json asks for',
    (name) => {
      const installed = copies(name);
      expect(installed.map((c) => c.path)).toEqual([`node_modules/${name}`]);
      expect(satisfies(installed[0]!.version, bolt.dependencies![name]!)).toBe(true);
      expect(satisfies(installed[0]!.version, pkg.dependencies[name]!)).toBe(true);
      // The copy Bolt loads is the one the bot loads.
      const fromBolt = createRequire(createRequire(root).resolve('@slack/bolt')).resolve(name);
      expect(fromBolt).toBe(createRequire(root).resolve(name));
    },
  );

  it("cron-parser is BullMQ's exact version, one copy", () => {
    const bullmq = lock.packages['node_modules/bullmq']!;
    expect(pkg.dependencies['cron-parser']).toBe(bullmq.dependencies!['cron-parser']);
    expect(copies('cron-parser')).toEqual([
      { path: 'node_modules/cron-parser', version: pkg.dependencies['cron-parser'] },
    ]);
  });

  it("the msgpackr-extract override is the locked version, within msgpackr's range", () => {
    const pinned = pkg.overrides['msgpackr-extract']!;
    expect(copies('msgpackr-extract')).toEqual([{ path: 'node_modules/msgpackr-extract', version: pinned }]);
    const msgpackr = lock.packages['node_modules/msgpackr']!;
    expect(satisfies(pinned, msgpackr.optionalDependencies!['msgpackr-extract']!)).toBe(true);
  });

  it('package.json says why each of them is there', () => {
    const why = Object.keys(pkg['//']).join(' ');
    for (const name of [...SLACK_BESIDE_BOLT, 'cron-parser', 'msgpackr-extract']) expect(why).toContain(name);
  });
});
