import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/platform/config.js';

/**
 * The documentation's own checks (issue 17): every relative link in README.md, CONTRIBUTING.md
 * and docs/ resolves (files and #anchors), docs/configuration.md's table has exactly the variables
 * of the config schema, and no page refers to the machine or the history of the work.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function markdownFiles(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? docs(path) : name.endsWith('.md') ? [path] : [];
    });
  return [join(ROOT, 'README.md'), join(ROOT, 'CONTRIBUTING.md'), ...docs(join(ROOT, 'docs'))];
}

/** The lines of a Markdown text outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = undefined;
      return;
    }
    if (!fence) out.push({ line, n: i + 1 });
  });
  return out;
}

/** Link targets of inline links and images (`[text](target)`, `![alt](target)`), code spans left out. */
function linkTargets(text: string): { target: string; n: number }[] {
  return proseLines(text).flatMap(({ line, n }) =>
    [...line.replace(/`[^`]*`/g, '``').matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({
      target: m[1]!,
      n,
    })),
  );
}

/**
 * GitHub's heading anchors, as github-slugger makes them: lower case, everything but letters,
 * marks, digits, connector punctuation, spaces and hyphens dropped, spaces to hyphens, and a
 * repeated slug suffixed -1, -2, …
 */
function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { line } of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const plain = m[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Relative links of `file` (absolute path) that do not resolve: a missing file, or a missing #anchor in a Markdown file. */
function brokenLinks(file: string, text: string): string[] {
  const broken: string[] = [];
  for (const { target, n } of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
    const [path = '', anchor] = target.split('#', 2);
    if (path === '') {
      if (anchor && !headingAnchors(text).has(anchor))
        broken.push(`${relative(ROOT, file)}:${n}: ${target} (no such heading)`);
      continue;
    }
    const dest = resolve(dirname(file), decodeURI(path));
    if (!existsSync(dest)) {
      broken.push(`${relative(ROOT, file)}:${n}: ${target} (no such file)`);
      continue;
    }
    if (anchor && dest.endsWith('.md') && !headingAnchors(readFileSync(dest, 'utf8')).has(anchor)) {
      broken.push(`${relative(ROOT, file)}:${n}: ${target} (no such heading)`);
    }
  }
  return broken;
}

/** The variable names in the first cells of the table under `## Variables` (each `` `NAME` ``), in order. */
function tableVariables(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^##\s+Variables\s*$/.test(l));
  if (start < 0) return [];
  const rows: string[] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (/^##\s/.test(line)) break;
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const cell = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/.exec(line);
    if (cell) rows.push(cell[1]!);
  }
  return rows;
}

/** How a table's rows differ from the schema's variables: missing rows, rows the schema doesn't know, rows given twice. */
function tableDiff(
  rows: string[],
  variables: readonly string[],
): { missing: string[]; unknown: string[]; repeated: string[] } {
  return {
    missing: variables.filter((v) => !rows.includes(v)),
    unknown: rows.filter((r) => !variables.includes(r)),
    repeated: rows.filter((r, i) => rows.indexOf(r) !== i),
  };
}

/** Phrases that tie a page to the machine it was written on or to the history of the work. */
const HISTORY = [
  /\bthis (2-core )?machine\b/i,
  /\b2-core machine\b/i,
  /\b(before|after|since|until) #\d/i,
  /(^|[\s(])#\d+\b/,
  /\bthe issue'?s\b/i,
  /\bthis session\b/i,
  /\bother (agents|helpers)\b/i,
  /\bwhile other (test )?suites\b/i,
];

/** Lines of `text` (code blocks included) that match a {@link HISTORY} phrase, as `file:line: text`. */
function historyLines(name: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) => (HISTORY.some((re) => re.test(line)) ? [`${name}:${i + 1}: ${line.trim()}`] : []));
}

describe('documentation', () => {
  const files = markdownFiles();

  it('covers the README, CONTRIBUTING and every docs/ page', () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toEqual(
      expect.arrayContaining([
        'README.md',
        'CONTRIBUTING.md',
        'docs/using.md',
        'docs/setup.md',
        'docs/configuration.md',
        'docs/operations.md',
        'docs/architecture.md',
        'docs/reliability.md',
        'docs/performance.md',
      ]),
    );
  });

  it('every relative link and #anchor resolves', () => {
    expect(files.flatMap((f) => brokenLinks(f, readFileSync(f, 'utf8')))).toEqual([]);
    expect(files.reduce((sum, f) => sum + linkTargets(readFileSync(f, 'utf8')).length, 0)).toBeGreaterThan(50);
  });

  it('the link check finds a missing file, a missing heading and a broken in-page anchor (it can fail)', () => {
    const file = join(ROOT, 'docs/example.md');
    const text = [
      '# Title',
      '## A heading: `code`',
      '[ok](#a-heading-code) [ok](using.md#who-can-use-it) [ok](../LICENSE)',
      '[bad](nope.md) [bad](using.md#nope)',
      '![bad](#title-2)',
      '```',
      '[in code](nope.md)',
      '```',
      '`[in a span](nope.md)`',
    ].join('\n');
    expect(brokenLinks(file, text)).toEqual([
      'docs/example.md:4: nope.md (no such file)',
      'docs/example.md:4: using.md#nope (no such heading)',
      'docs/example.md:5: #title-2 (no such heading)',
    ]);
  });

  it('makes anchors the way GitHub does', () => {
    expect([
      ...headingAnchors(
        "## Start a job: `/docs-edit`\n## A request's path\n## @mentions and DMs\n## Notes\n## Notes\n### `invalid_auth` (or `token_revoked`)\n## [Linked](x.md) **bold**\n",
      ),
    ]).toEqual([
      'start-a-job-docs-edit',
      'a-requests-path',
      'mentions-and-dms',
      'notes',
      'notes-1',
      'invalid_auth-or-token_revoked',
      'linked-bold',
    ]);
  });

  it("docs/configuration.md has one row for every variable of the config schema, and none it doesn't know", () => {
    const rows = tableVariables(readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8'));
    expect(CONFIG_VARIABLES).toContain('SLACK_BOT_TOKEN');
    expect(tableDiff(rows, CONFIG_VARIABLES)).toEqual({ missing: [], unknown: [], repeated: [] });
  });

  it('the real table, with a row taken out and a row the schema does not know put in, fails the check', () => {
    const text = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8')
      .split('\n')
      .map((line) => (line.startsWith('| `PORT` |') ? '| `NOT_A_VARIABLE` | 1 | not read by the bot |' : line))
      .join('\n');
    expect(tableDiff(tableVariables(text), CONFIG_VARIABLES)).toEqual({
      missing: ['PORT'],
      unknown: ['NOT_A_VARIABLE'],
      repeated: [],
    });
  });

  it('the table check fails on a missing row, an unknown row and a repeated row', () => {
    const text = [
      '## Variables',
      '',
      '| variable | default | meaning |',
      '|---|---|---|',
      '| `A` | 1 | a |',
      '| `C` | 3 | c |',
      '| `C` | 3 | c again |',
      '',
      '## Other',
      '| `B` | 2 | not in the table |',
    ].join('\n');
    const rows = tableVariables(text);
    expect(rows).toEqual(['A', 'C', 'C']);
    expect(tableDiff(rows, ['A', 'B'])).toEqual({ missing: ['B'], unknown: ['C', 'C'], repeated: ['C'] });
  });

  it('no page refers to the machine it was written on or to the history of the work', () => {
    expect(files.flatMap((f) => historyLines(relative(ROOT, f), readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('the history check finds such phrases (it can fail)', () => {
    const text = [
      'Measured on this 2-core machine.',
      'The schedule before #12 polled more.',
      "As in the issue's baseline.",
      'Fixed in #14.',
      'See [Fault tests](#fault-tests).',
      'On a 2-core, 24 GiB Linux VM, measured 2026-11-23.',
    ].join('\n');
    expect(historyLines('x.md', text).map((l) => l.split(':')[1])).toEqual(['1', '2', '3', '4']);
  });
});
