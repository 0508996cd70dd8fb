import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/data.md ("What the bot keeps") names every kind of Redis key the code writes: each key family
 * the code builds (`${prefix}:<family>…` templates, the job and preview stores' `this.key('<family>', …)`,
 * the BullMQ queues' names) has a row of the page's tables (or, for a queue, is named on the page), and
 * every row's family is one the code builds. A key family added without a row, or a row left after
 * its family went, fails here.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PAGE = join(ROOT, 'docs/data.md');

/** The `.ts` files under `dir`, with their text. */
function sources(dir: string): { name: string; text: string }[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return entry.endsWith('.ts') ? [{ name: relative(ROOT, path), text: readFileSync(path, 'utf8') }] : [];
  });
}

/** `text` without its comments (block comments, and lines that are a `//` comment). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** A family: a key's literal head, its segments joined with `:` (`ask:thread`, `agent-job`). */
const FAMILY = String.raw`[A-Za-z][\w-]*(?::[A-Za-z][\w-]*)*`;

/** The key families and queue names the code builds, each with the first file naming it. */
function codeFamilies(files: { name: string; text: string }[]): {
  families: Map<string, string>;
  queues: Map<string, string>;
} {
  const families = new Map<string, string>();
  const queues = new Map<string, string>();
  for (const { name, text } of files) {
    const c = code(text);
    // `${prefix}:ask:thread:${…}`, `${this.deps.keyPrefix}:cache:…`, `${visitorsKeyPrefix(prefix)}:digest-run:…`
    for (const m of c.matchAll(new RegExp(String.raw`\$\{([^}]*)\}:(${FAMILY})`, 'g')))
      if (/prefix/i.test(m[1]!) && !families.has(m[2]!)) families.set(m[2]!, name);
    // JobStore's and PreviewStore's `this.key('agent-job', jobId)`
    for (const m of c.matchAll(/\bthis\.key\(\s*'([\w-]+)'/g)) if (!families.has(m[1]!)) families.set(m[1]!, name);
    for (const m of c.matchAll(/\bexport const \w+_QUEUE = '([\w-]+)'/g)) queues.set(m[1]!, name);
  }
  return { families, queues };
}

/** The key patterns of the page's tables: the backticked patterns of each row's first cell, placeholders cut. */
function pagePatterns(page: string): string[] {
  return page
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

/** Whether `pattern` (`visitors:cache:<query>`) has `family` (`cache`, `visitors:cache`) as whole segments. */
function names(pattern: string, family: string): boolean {
  const literal = `:${pattern.replace(/<[^>]*>/g, '*')}:`;
  return literal.includes(`:${family}:`);
}

/** What is wrong between the code's key families and the page: families without a row, rows without a family. */
function problems(files: { name: string; text: string }[], page: string): string[] {
  const { families, queues } = codeFamilies(files);
  const patterns = pagePatterns(page);
  const queueRow = (p: string) =>
    p.startsWith('<queue>') || p.startsWith(':') || [...queues.keys()].some((q) => names(p, q));
  return [
    ...[...families]
      .filter(([f]) => !patterns.some((p) => names(p, f)))
      .map(([f, file]) => `${f} (${file}): no row in docs/data.md`),
    ...[...queues]
      .filter(([q]) => !page.includes(`\`${q}\``))
      .map(([q, file]) => `queue ${q} (${file}): not named in docs/data.md`),
    ...patterns
      .filter((p) => !queueRow(p) && ![...families.keys()].some((f) => names(p, f)))
      .map((p) => `${p}: a row in docs/data.md, but the code builds no such key`),
  ];
}

describe('docs/data.md, what the bot keeps', () => {
  const files = sources(join(ROOT, 'src'));
  const page = readFileSync(PAGE, 'utf8');

  it('has a row for every key family the code builds, and none the code does not', () => {
    const { families, queues } = codeFamilies(files);
    // The extraction finds what it should (else this check would pass on nothing).
    expect([...families.keys()]).toEqual(
      expect.arrayContaining(['agent-job', 'ask:thread', 'settings', 'installations', 'cache', 'job-lock']),
    );
    expect([...queues.keys()].sort()).toEqual([
      'ask-answer',
      'intake',
      'poll-agent-job',
      'preview-deployment',
      'send-digest',
    ]);
    expect(problems(files, page)).toEqual([]);
  });

  it('finds a new key family without a row, a queue not named and a row of no family (it can fail)', () => {
    const planted = [
      ...files,
      {
        name: 'src/x.ts',
        text: [
          '/** Not a key: `${prefix}:in-a-comment:…` */',
          'const k = `${this.prefix}:brand-new:${channel}`;',
          "export const SWEEP_QUEUE = 'sweep';",
        ].join('\n'),
      },
    ];
    const page2 = page
      .replace(/^\| `previews-off:<project>` \|.*\n/m, '')
      .replace(/^(\| `preview-slots` \|.*\n)/m, '$1| `gone-family:<job>` | nothing | — | 1 day | its TTL |\n');
    expect(page2).not.toBe(page);
    expect(problems(planted, page2)).toEqual([
      'previews-off (src/features/agent-jobs/preview/record.ts): no row in docs/data.md',
      'brand-new (src/x.ts): no row in docs/data.md',
      'queue sweep (src/x.ts): not named in docs/data.md',
      'gone-family:<job>: a row in docs/data.md, but the code builds no such key',
    ]);
  });
});
