import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, AUDIT_REASONS } from '../../src/platform/audit.js';

/**
 * The audit trail's documentation matches the code: docs/operations.md's audit trail table lists exactly the `action` and
 * `reason` values the code can write (src/platform/audit.ts), no more, no fewer.
 */

const OPERATIONS = resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/operations.md');

/** The audit trail section of a Markdown page: from `## Audit trail` to the next `## ` heading. */
function auditSection(text: string): string {
  const start = text.indexOf('\n## Audit trail\n');
  if (start < 0) throw new Error('no "## Audit trail" section');
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The `| field | \`value\` | … |` rows of the section's table, grouped by field. */
function documented(section: string): { action: string[]; reason: string[] } {
  const out = { action: [] as string[], reason: [] as string[] };
  for (const m of section.matchAll(/^\|\s*(action|reason)\s*\|\s*`([^`]+)`\s*\|/gm))
    out[m[1] as 'action' | 'reason'].push(m[2]!);
  return out;
}

/** What is wrong between the documented values and the code's: missing rows and unknown rows. */
function drift(field: string, docs: string[], code: readonly string[]): string[] {
  return [
    ...code.filter((v) => !docs.includes(v)).map((v) => `${field} ${v}: no row in docs/operations.md`),
    ...docs.filter((v) => !code.includes(v)).map((v) => `${field} ${v}: documented but the code does not write it`),
    ...docs.filter((v, i) => docs.indexOf(v) !== i).map((v) => `${field} ${v}: documented twice`),
  ];
}

function problems(page: string): string[] {
  const d = documented(auditSection(page));
  return [...drift('action', d.action, AUDIT_ACTIONS), ...drift('reason', d.reason, AUDIT_REASONS)];
}

describe('the audit trail table in docs/operations.md', () => {
  const page = readFileSync(OPERATIONS, 'utf8');

  it('lists exactly the actions and reasons the code writes', () => {
    expect(problems(page)).toEqual([]);
  });

  it('finds a missing row and a row the code does not know', () => {
    const page2 = page
      .replace(/^\| action \| `job\.feedback` \|.*\n/m, '')
      .replace(/^(\| reason \| `guest` \|.*\n)/m, '$1| reason | `not_settings_admin` | stale |\n');
    expect(page2).not.toBe(page);
    expect(problems(page2)).toEqual([
      'action job.feedback: no row in docs/operations.md',
      'reason not_settings_admin: documented but the code does not write it',
    ]);
  });
});
