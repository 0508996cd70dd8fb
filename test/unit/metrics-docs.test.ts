import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BotMetrics } from '../../src/platform/metrics.js';
import { METRICS } from '../../src/platform/metrics-catalog.js';
import { Scrape } from '../helpers/prometheus.js';

/**
 * docs/operations.md's metrics match the code: every `docs_bot_*` name the page mentions is one the
 * bot serves (metrics-catalog.ts), every metric has a row in the Monitoring table, and every alert
 * rule's expression names real metrics, real labels of them and, for the labels whose values the bot
 * fixes at start (their series start at 0), real values: a rule naming a metric or a value that does
 * not exist never fires, and nothing says so.
 */

const OPERATIONS = resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/operations.md');

type Entry = { name: string; labelNames?: readonly string[]; buckets?: readonly number[] };
const CATALOG: Entry[] = Object.values(METRICS);

/** Labels Prometheus adds to every scraped series (the target's); a histogram bucket's `le` is allowed by {@link entryOf}'s `bucket`. */
const TARGET_LABELS = ['instance', 'job'];

/**
 * Labels whose series start at 0 for some values only (the ones an alert must see from the start),
 * while other values come with events: a rule may name any value of them.
 */
const OPEN_LABELS: Record<string, string[]> = { docs_bot_docs_api_requests_total: ['status_code'] };

/** The catalog entry a sample name belongs to (a histogram's `_bucket`, `_sum`, `_count` included). */
function entryOf(sample: string): { entry: Entry; bucket: boolean } | undefined {
  for (const entry of CATALOG) {
    if (sample === entry.name) return { entry, bucket: false };
    if (entry.buckets && ['_bucket', '_sum', '_count'].some((s) => sample === entry.name + s))
      return { entry, bucket: sample.endsWith('_bucket') };
  }
  return undefined;
}

/** The alert rules of the page's "## Alert rules" section (its YAML block). */
function alertRules(page: string): { alert: string; expr: string }[] {
  const start = page.indexOf('\n## Alert rules\n');
  if (start < 0) throw new Error('no "## Alert rules" section');
  const end = page.indexOf('\n## ', start + 1);
  const block = /```yaml\n([\s\S]*?)```/.exec(page.slice(start, end < 0 ? undefined : end))?.[1];
  if (!block) throw new Error('no YAML block under "## Alert rules"');
  const doc = parse(block) as { groups: { rules: { alert: string; expr: string }[] }[] };
  return doc.groups.flatMap((g) => g.rules);
}

/** The label values of each metric whose series exist from the start (fixed sets), as a fresh bot serves them. */
async function fixedValues(): Promise<(metric: string, label: string) => string[] | undefined> {
  const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
  const s = new Scrape(await m.registry.metrics());
  return (metric, label) => {
    const values = s.series(metric).flatMap((l) => (l[label] === undefined ? [] : [l[label]!]));
    return values.length ? values : undefined;
  };
}

/** What is wrong with one rule's expression. */
function ruleProblems(
  rule: { alert: string; expr: string },
  values: (metric: string, label: string) => string[] | undefined,
): string[] {
  const out: string[] = [];
  const expr = rule.expr;
  const used = [...expr.matchAll(/\b(docs_bot_[a-z0-9_]+)(\{[^}]*\})?/g)];
  if (!used.length) out.push(`${rule.alert}: names no docs_bot_ metric`);
  const entries: { entry: Entry; bucket: boolean }[] = [];
  for (const [, sample, selector] of used) {
    const found = entryOf(sample!);
    if (!found) {
      out.push(`${rule.alert}: ${sample} is not a metric the bot serves`);
      continue;
    }
    entries.push(found);
    for (const [, label, op, value] of (selector ?? '').matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)) {
      const known = [...(found.entry.labelNames ?? []), ...TARGET_LABELS, ...(found.bucket ? ['le'] : [])];
      if (!known.includes(label!)) {
        out.push(`${rule.alert}: ${sample} has no label ${label}`);
        continue;
      }
      const alternatives = op === '=~' || op === '!~' ? value!.split('|') : [value!];
      if (OPEN_LABELS[found.entry.name]?.includes(label!)) {
        // An open label's values are not listed, but still have a shape: an HTTP status (or a class
        // of them) or network_error.
        for (const v of alternatives)
          if (!/^(?:\d{3}|\d(?:xx|\.\.)|network_error)$/.test(v))
            out.push(`${rule.alert}: ${sample}{${label}} is never "${v}" (an HTTP status or network_error)`);
        continue;
      }
      const fixed = values(found.entry.name, label!);
      if (!fixed) continue;
      for (const v of alternatives)
        if (!fixed.some((f) => new RegExp(`^(?:${v})$`).test(f)))
          out.push(`${rule.alert}: ${sample}{${label}} is never "${v}" (it is one of ${fixed.join(', ')})`);
    }
  }
  for (const [, list] of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g))
    for (const label of list!.split(',').map((l) => l.trim()))
      for (const { entry, bucket } of entries)
        if (![...(entry.labelNames ?? []), ...TARGET_LABELS, ...(bucket ? ['le'] : [])].includes(label))
          out.push(`${rule.alert}: groups by ${label}, which ${entry.name} does not have`);
  return [...new Set(out)];
}

async function problems(page: string): Promise<string[]> {
  const values = await fixedValues();
  const mentioned = new Set([...page.matchAll(/\bdocs_bot_[a-z0-9_]+/g)].map((m) => m[0]));
  return [
    ...[...mentioned].filter((n) => !entryOf(n)).map((n) => `${n}: mentioned but not served`),
    ...CATALOG.filter((e) => !new RegExp(`^\\| \`${e.name}\` \\|`, 'm').test(page)).map(
      (e) => `${e.name}: no row in the Monitoring table`,
    ),
    ...alertRules(page).flatMap((r) => ruleProblems(r, values)),
  ];
}

describe("docs/operations.md's metrics and alert rules", () => {
  const page = readFileSync(OPERATIONS, 'utf8');

  it('name only metrics, labels and fixed label values the bot serves; every metric has a row', async () => {
    expect(alertRules(page).length).toBeGreaterThan(5);
    expect(await problems(page)).toEqual([]);
  });

  it('finds a rule with a metric, a label or a value that does not exist, and a metric with no row', async () => {
    const page2 = page
      .replace('docs_bot_ask_total{outcome="failed"}[15m])) >= 3', 'docs_bot_ask_total{outcome="failure"}[15m])) >= 3')
      .replace(
        'sum by (instance) (increase(docs_bot_redis_reconnects_total',
        'sum by (role) (increase(docs_bot_redis_reconnects_total',
      )
      .replace(
        'expr: min by (project) (docs_bot_agent_budget_remaining)',
        'expr: min by (project) (docs_bot_agent_budget_left)',
      )
      .replace(/^\| `docs_bot_ask_feedback_total` \|.*\n/m, '');
    expect(await problems(page2)).toEqual([
      'docs_bot_agent_budget_left: mentioned but not served',
      'docs_bot_ask_feedback_total: no row in the Monitoring table',
      'DocsBotAnswersFailing: docs_bot_ask_total{outcome} is never "failure" (it is one of answered, unanswered, failed, refused)',
      'DocsBotAgentBudgetLow: docs_bot_agent_budget_left is not a metric the bot serves',
      'DocsBotRedisReconnecting: groups by role, which docs_bot_redis_reconnects_total does not have',
    ]);
  });
});
