import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/platform/config.js';
import { SURFACES } from '../../src/surfaces.js';

/**
 * The documentation's own checks (so the docs keep matching the code): every relative link in README.md,
 * CONTRIBUTING.md, CHANGELOG.md and docs/ resolves (files and #anchors), and so does every pointer from
 * code into a page's heading; docs/configuration.md's table has exactly the variables of the config
 * schema; docs/architecture.md lists every folder under src/features; a table of contents lists every
 * H2 of its page; no page refers to the machine or the history of the work (history is CHANGELOG.md's);
 * no code cites an issue number; every statement of the vendor's hourly limits agrees with its source.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const THIS_FILE = fileURLToPath(import.meta.url);

function markdownFiles(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? docs(path) : name.endsWith('.md') ? [path] : [];
    });
  return [
    join(ROOT, 'README.md'),
    join(ROOT, 'CONTRIBUTING.md'),
    join(ROOT, 'CHANGELOG.md'),
    ...docs(join(ROOT, 'docs')),
  ];
}

/** The pages that state what is true now (every Markdown page but CHANGELOG.md, whose subject is history). */
const presentTense = (file: string): boolean => relative(ROOT, file) !== 'CHANGELOG.md';

const CODE_DIRS = ['src', 'sandbox', 'test', 'bench', 'scripts'];
const CODE_EXT = /\.(ts|mts|js|mjs|cjs|sh)$/;
const ROOT_CODE = [
  'eslint.config.js',
  '.dependency-cruiser.cjs',
  'vitest.config.ts',
  'vitest.faults.config.ts',
  '.env.example',
  'manifest.yml',
  'Dockerfile',
  '.ci/run',
];

/** Code, scripts and configuration (the vendor copies in test/fixtures and this file's planted examples left out). */
function codeFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (path === join(ROOT, 'test/fixtures') || path === THIS_FILE) return [];
      return statSync(path).isDirectory() ? walk(path) : CODE_EXT.test(name) ? [path] : [];
    });
  const roots = ROOT_CODE.map((f) => join(ROOT, f)).filter((f) => existsSync(f));
  return [...CODE_DIRS.flatMap((d) => walk(join(ROOT, d))), ...roots];
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
 * GitHub's slug of a heading's text, as github-slugger makes it: lower case, everything but
 * letters, marks, digits, connector punctuation, spaces and hyphens dropped, spaces to hyphens.
 */
function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** A heading of a page: its level (1–6), its text (links made plain) and its anchor. */
interface Heading {
  level: number;
  title: string;
  anchor: string;
}

/** The headings of a Markdown text outside code blocks, in order; a repeated slug is suffixed -1, -2, … as on GitHub. */
function headings(text: string): Heading[] {
  const seen = new Map<string, number>();
  const out: Heading[] = [];
  for (const { line } of proseLines(text)) {
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const title = m[2]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = slug(title);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.push({ level: m[1]!.length, title, anchor: count === 0 ? base : `${base}-${count}` });
  }
  return out;
}

/** GitHub's heading anchors of a Markdown text. */
function headingAnchors(text: string): Set<string> {
  return new Set(headings(text).map((h) => h.anchor));
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

/** Lines of `text` (code blocks included) that match one of `patterns`, as `file:line: text`. */
function matchingLines(name: string, text: string, patterns: readonly RegExp[]): string[] {
  return text
    .split('\n')
    .flatMap((line, i) => (patterns.some((re) => re.test(line)) ? [`${name}:${i + 1}: ${line.trim()}`] : []));
}

/** Lines of `text` (code blocks included) that match a {@link HISTORY} phrase, as `file:line: text`. */
function historyLines(name: string, text: string): string[] {
  return matchingLines(name, text, HISTORY);
}

/**
 * Words that tell how the code came to be rather than what it does: a page that states what is true
 * now has no use for them (CHANGELOG.md does). Each is narrow enough that present-tense statements
 * ("is used to sign", "before the ack", "an older version of me recorded it") pass.
 */
const HISTORY_WORDS = [
  /\bnow fixed\b/i,
  /(?<!\b(?:right|just) )\bnow [a-z]+s\b/i,
  /\b(?:runs?|code|version) (?:before|after) the\b/i,
  /\bbefore the [\w-]+ (?:guard|setting|fix|change|move|split|rebase)\b/i,
  /(?<!\b(?:is|are|be|been|being|was|were|gets?|got) )\bused to\b/i,
  /\bno longer\b/i,
  /\bto be (?:reported|filed|fixed|done)\b/i,
  /\b(?:an?|the) (?:first|earlier|previous) (?:version|series)\b/i,
  /\bon the (?:final|old|new) code\b/i,
  /\b(?:previously|formerly)\b/i,
];

/** Issue-tracker references: "issue 15", "issues #15", a bare "#22"; an upstream one names its repository (owner/repo#123) and passes, and so does "PR #12". */
const ISSUE_NUMBER = [/\bissues?\s+#?\d+/i, /(?<![\w/.@-])(?<!\bPR )#\d+\b/];

/** The ids of src/surfaces.ts not in docs/architecture.md's surfaces table (its `| kind | id` header to its last row), in code. */
function surfacesNotInTable(architecture: string): string[] {
  const lines = architecture.slice(architecture.indexOf('| kind | id')).split('\n');
  const table = lines
    .slice(
      0,
      lines.findIndex((line) => !line.startsWith('|')),
    )
    .join('\n');
  return [...new Set(SURFACES.map((s) => s.id))].filter((id) => !table.includes(`\`${id}\``));
}

/**
 * The folders `features/` holds in the tree of src/ under docs/architecture.md's "Layers": the
 * `│   ├── name/` lines below `├── features/`, up to the next top-level entry.
 */
function treeFeatures(architecture: string): string[] {
  const start = architecture.indexOf('## Layers');
  const fence = architecture.indexOf('```', start);
  const tree = architecture.slice(fence + 3, architecture.indexOf('```', fence + 3));
  let parent = '';
  const found: string[] = [];
  for (const line of tree.split('\n')) {
    const top = /^[├└]── ([\w.-]+)/.exec(line);
    if (top) parent = top[1]!;
    const child = /^│\s{3}[├└]── ([\w.-]+)\//.exec(line);
    if (child && parent === 'features') found.push(child[1]!);
  }
  return found;
}

/** How the tree's feature folders differ from the folders under src/features. */
function featureDiff(listed: string[], folders: string[]): { unlisted: string[]; gone: string[] } {
  return { unlisted: folders.filter((f) => !listed.includes(f)), gone: listed.filter((f) => !folders.includes(f)) };
}

/**
 * The anchors a page's table of contents links to: the `- [text](#anchor)` items (nested ones too)
 * before its first H2 other than "Contents" (README's list sits under `## Contents`). Empty when the
 * page has none.
 */
function tocAnchors(text: string): string[] {
  const anchors: string[] = [];
  for (const { line } of proseLines(text)) {
    const h2 = /^##\s+(.*?)\s*$/.exec(line);
    if (h2 && h2[1] !== 'Contents') break;
    const item = /^\s*[-*]\s+\[.*\]\(#([^)\s]+)\)\s*$/.exec(line);
    if (item) anchors.push(item[1]!);
  }
  return anchors;
}

/**
 * The headings a page's table of contents leaves out, as `## title` / `### title`: every H2 but
 * "Contents", and every H3 of a section some of whose H3s the table lists. `[]` for a page without one.
 */
function tocMisses(text: string): string[] {
  const toc = new Set(tocAnchors(text));
  if (toc.size === 0) return [];
  const missing: string[] = [];
  let h3s: Heading[] = [];
  const endSection = () => {
    if (h3s.some((h) => toc.has(h.anchor)))
      missing.push(...h3s.filter((h) => !toc.has(h.anchor)).map((h) => `### ${h.title}`));
    h3s = [];
  };
  for (const h of headings(text)) {
    if (h.level === 2) {
      endSection();
      if (h.title !== 'Contents' && !toc.has(h.anchor)) missing.push(`## ${h.title}`);
    } else if (h.level === 3) h3s.push(h);
  }
  endSection();
  return missing;
}

/**
 * Pointers from code into the pages that do not resolve: `docs/page.md#anchor`, and a heading named
 * after a page — `docs/page.md "Heading"`, `docs/page.md ("Heading")`, `docs/page.md, "Heading"`,
 * `README "Heading"`, `CONTRIBUTING.md "Heading"` — whose page or heading does not exist. A pointer
 * wrapped over comment lines (`*`, `//`, `#`) is read as one line. A README named after one of the
 * package's dependencies (`the ioredis README, "…"`) is that project's, not this one's.
 */
function brokenPointers(name: string, text: string): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  const dependencies = new Set(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }));
  const joined = text.replace(/\n[ \t]*(?:\*(?!\/)|\/\/|#)?[ \t]*/g, '\n');
  const pointer = /(?<![\w/.-])(README|CONTRIBUTING|docs\/[\w-]+\.md)(?:\.md)?(?:#([\w-]+)|,?\s*\(?"([^"]{1,80})")?/g;
  const broken: string[] = [];
  for (const m of joined.matchAll(pointer)) {
    const before = /([\w@/.-]+)\s+$/.exec(joined.slice(Math.max(0, m.index - 60), m.index))?.[1];
    if (before !== undefined && dependencies.has(before)) continue;
    const page = m[1]!.endsWith('.md') ? m[1]! : `${m[1]!}.md`;
    const where = `${name}:${joined.slice(0, m.index).split('\n').length}`;
    const path = join(ROOT, page);
    if (!existsSync(path)) {
      broken.push(`${where}: ${m[0]} (no such page)`);
      continue;
    }
    const want = m[2] ?? (m[3] === undefined ? undefined : slug(m[3].replace(/\s+/g, ' ').trim()));
    if (want !== undefined && !headingAnchors(readFileSync(path, 'utf8')).has(want))
      broken.push(`${where}: ${m[0].replace(/\s+/g, ' ')} (no such heading)`);
  }
  return broken;
}

/**
 * Statements of the vendor's hourly limits that disagree with test/fixtures/mintlify/SOURCE.md: a limit
 * "per project per hour" is only the agent endpoints' (create job, send message), so its sentence must
 * name the agent or a job; analytics are limited per organization, never per project. Text wrapped
 * over comment lines is read as one line; `file:line: match` for each.
 */
function wrongVendorLimits(name: string, text: string): string[] {
  const joined = text.replace(/\n[ \t]*(?:\*(?!\/)|\/\/|#)?[ \t]*/g, '\n').replace(/\*\*/g, '');
  const wrong: string[] = [];
  for (const m of joined.matchAll(/\b100\s+(?:uses|requests)\s+per\s+(project|organization)\s+per\s+hour/g)) {
    const before = joined.slice(Math.max(0, m.index - 120), m.index);
    const perProject = m[1] === 'project';
    const aboutAgent = /agent|\bjobs?\b|follow-up/i.test(before);
    const aboutAnalytics = /analytics/i.test(before.slice(-40));
    if ((perProject && !aboutAgent) || (perProject && aboutAnalytics))
      wrong.push(`${name}:${joined.slice(0, m.index).split('\n').length}: ${m[0].replace(/\s+/g, ' ')}`);
  }
  return wrong;
}

describe('documentation', () => {
  const files = markdownFiles();

  it('covers the README, CONTRIBUTING and every docs/ page', () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toEqual(
      expect.arrayContaining([
        'README.md',
        'CONTRIBUTING.md',
        'CHANGELOG.md',
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

  it('no page but CHANGELOG.md tells how the code came to be', () => {
    const pages = files.filter(presentTense);
    expect(pages.flatMap((f) => matchingLines(relative(ROOT, f), readFileSync(f, 'utf8'), HISTORY_WORDS))).toEqual([]);
  });

  it('the history-words check finds such words and passes present-tense ones (it can fail)', () => {
    const text = [
      'Two wrong endings the storms found, now fixed.',
      'A `WAIT` that cannot answer at all now makes the answer "can\'t tell".',
      'In runs before the setting, 6–8 of 40 ended wrong.',
      'The same scenario before the replica guard lost 10.',
      'The bot used to poll every 10 s.',
      'Visitors no longer receives digests.',
      'To be reported upstream with this reproduction.',
      'An earlier series gave the same bar.',
      'Three runs on the final code.',
      'The key is used to sign button values; it is checked before the ack.',
      'The person hears "an older version of me recorded it"; a payload that does not match is given up.',
    ].join('\n');
    expect(matchingLines('x.md', text, HISTORY_WORDS).map((l) => l.split(':')[1])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
    ]);
  });

  it("docs/architecture.md's surfaces table names every surface of src/surfaces.ts", () => {
    expect(SURFACES.length).toBeGreaterThan(40);
    expect(surfacesNotInTable(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'))).toEqual([]);
  });

  it('the surfaces check finds an id left out of the table (it can fail)', () => {
    const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8').replace(', `agent_jobs.preview_fix`', '');
    expect(surfacesNotInTable(text)).toEqual(['agent_jobs.preview_fix']);
  });

  it('docs/architecture.md lists every folder under src/features, and none that is gone', () => {
    const folders = readdirSync(join(ROOT, 'src/features')).filter((f) =>
      statSync(join(ROOT, 'src/features', f)).isDirectory(),
    );
    const listed = treeFeatures(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
    expect(folders.length).toBeGreaterThan(5);
    expect(featureDiff(listed, folders)).toEqual({ unlisted: [], gone: [] });
  });

  it('the feature check finds a folder left out of the tree and one the tree names that is gone (it can fail)', () => {
    const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
      .split('\n')
      .filter((line) => !line.startsWith('│   ├── agent-view/'))
      .join('\n');
    const listed = treeFeatures(text);
    expect(listed).not.toContain('agent-view');
    expect(listed).not.toContain('slack'); // platform/slack/ is no feature
    expect(featureDiff([...listed, 'retired'], [...listed, 'agent-view'])).toEqual({
      unlisted: ['agent-view'],
      gone: ['retired'],
    });
  });

  it('every table of contents lists every H2 of its page (and every H3 of a section whose H3s it lists)', () => {
    const withToc = files.filter((f) => tocAnchors(readFileSync(f, 'utf8')).length > 0).map((f) => relative(ROOT, f));
    expect(withToc).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/using.md', 'docs/setup.md']));
    expect(files.flatMap((f) => tocMisses(readFileSync(f, 'utf8')).map((h) => `${relative(ROOT, f)}: ${h}`))).toEqual(
      [],
    );
  });

  it('the contents check finds a missing H2 and a missing H3 of a listed section (it can fail)', () => {
    const text = [
      '# Page',
      '- [One](#one)',
      '- [Two](#two)',
      '  - [Two a](#two-a)',
      '## One',
      '### One a',
      '## Two',
      '### Two a',
      '### Two b',
      '## Three',
      '```',
      '## not a heading',
      '```',
    ].join('\n');
    expect(tocMisses(text)).toEqual(['### Two b', '## Three']);
    expect(tocMisses('# Page\n## One\n## Two\n')).toEqual([]);
    expect(tocMisses('# R\n## Contents\n- [A](#a)\n## A\n## B\n')).toEqual(['## B']);
  });

  it("every pointer from code into a page's heading resolves", () => {
    const code = codeFiles();
    expect(code.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining(['eslint.config.js', 'src/main.ts', 'src/platform/metrics.ts']),
    );
    expect(code.flatMap((f) => brokenPointers(relative(ROOT, f), readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('the pointer check finds a missing README section, a missing heading and a missing page (it can fail)', () => {
    const text = [
      '// One feature shape (README "Architecture").',
      '/** The mention rule (docs/using.md "The mention rule"), the access settings (docs/using.md',
      ' * "Who can use it"), the audit lines (docs/operations.md#audit-trail), the rules (CONTRIBUTING.md',
      ' * "Layering rules"), the metrics: docs/operations.md ("Monitoring"); the ioredis README, "Special Note".',
      ' * Rolling upgrades (docs/architecture.md, "Adding a feature"), docs/using.md ("Asking the',
      ' * docs"), docs/operations.md#sentinel, docs/gone.md. */',
    ].join('\n');
    expect(brokenPointers('x.ts', text)).toEqual([
      'x.ts:1: README "Architecture" (no such heading)',
      'x.ts:5: docs/using.md ("Asking the docs" (no such heading)',
      'x.ts:6: docs/operations.md#sentinel (no such heading)',
      'x.ts:6: docs/gone.md (no such page)',
    ]);
  });

  it("every statement of the vendor's hourly limits agrees with the fixtures' SOURCE.md (per project: agent only)", () => {
    const files = [...markdownFiles().filter(presentTense), ...codeFiles()];
    expect(files.flatMap((f) => wrongVendorLimits(relative(ROOT, f), readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('the vendor-limit check finds an analytics or unnamed limit per project, and passes the agent one (it can fail)', () => {
    const text = [
      ' * @param ms - wait on a 429 (the vendor documents none; its limit is 100 uses per project per hour).',
      'The docs analytics API allows 100 requests per project per hour.',
      'The docs agent allows **100',
      '   requests per project per hour** (starting a job and sending a follow-up each count).',
      'Visitor analytics have their own 100 requests per organization per hour.',
    ].join('\n');
    expect(wrongVendorLimits('x.md', text).map((l) => l.split(':')[1])).toEqual(['1', '2']);
  });

  it('no code and no page under docs/ cites an issue number', () => {
    const code = codeFiles().filter((f) => !relative(ROOT, f).startsWith('test/fixtures'));
    const pages = markdownFiles().filter((f) => relative(ROOT, f).startsWith('docs/'));
    expect(pages.length).toBeGreaterThan(5);
    const files = [...code, ...pages];
    expect(files.flatMap((f) => matchingLines(relative(ROOT, f), readFileSync(f, 'utf8'), ISSUE_NUMBER))).toEqual([]);
  });

  it('the issue-number check finds "issue 12", "issues #15" and a bare "#22", and passes upstream references (it can fail)', () => {
    const text = [
      '/** The announcement goal (issue #12: p95 ≤ 20 s). */',
      '// Per-person shares (issue 15 item 5).',
      "describe('bounded work per person (#22)', () => {});",
      ' * (issues #15, #22)',
      ' * seen to stop after a failover: taskforcesh/bullmq#3088 and taskforcesh/bullmq#4378',
      "const title = 'Opened PR #12'; const color = '#0f5257'; const id = 'job_1#2';",
      'const first = parsed.error.issues[0];',
    ].join('\n');
    expect(matchingLines('x.ts', text, ISSUE_NUMBER).map((l) => l.split(':')[1])).toEqual(['1', '2', '3', '4']);
  });
});
