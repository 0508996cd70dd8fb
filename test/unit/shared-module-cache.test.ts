import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The vitest project 'unit' (test/unit, test/integration; vitest.config.ts) runs with
 * `isolate: false`: the files a worker runs share its module cache, globals and process.env. A file
 * that mocks a module, stubs a global or the environment, or leaves fake timers on changes what
 * every later file in that worker sees. This check refuses those in the files of that project and
 * in the helpers they import.
 */

const WHY =
  "files of the vitest project 'unit' share a worker's module cache, globals and process.env (isolate: false in vitest.config.ts); pass the dependency in instead, or move the test to test/e2e";

/** What a file must not do under shared module state: a pattern and why. */
const HAZARDS: { pattern: RegExp; what: string }[] = [
  {
    pattern: /\bvi\s*\.\s*(?:mock|doMock|unmock|doUnmock)\s*\(/,
    what: 'vi.mock/vi.doMock replaces a module for every file',
  },
  { pattern: /\bvi\s*\.\s*stubEnv\s*\(/, what: 'vi.stubEnv changes process.env for every file' },
  { pattern: /\bvi\s*\.\s*stubGlobal\s*\(/, what: 'vi.stubGlobal changes a global for every file' },
  {
    pattern:
      /\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*(?:=(?!=)|\+=|\?\?=|\|\|=|&&=)|\bdelete\s+process\.env\b|Object\.assign\(\s*process\.env\b/,
    what: 'a write to process.env changes it for every file',
  },
];

/**
 * The hazards of `text` (a test or helper file's source) under a shared module cache, each as
 * `<what> — <why>`; empty when there is none. Fake timers are allowed when the file also turns
 * them off (`useRealTimers`).
 */
function sharedStateHazards(text: string): string[] {
  const found = HAZARDS.filter((h) => h.pattern.test(text)).map((h) => `${h.what} — ${WHY}`);
  if (/\buseFakeTimers\s*\(/.test(text) && !/\buseRealTimers\s*\(/.test(text))
    found.push(`vi.useFakeTimers without vi.useRealTimers leaves fake timers for every later file — ${WHY}`);
  return found;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const self = fileURLToPath(import.meta.url);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

describe("the 'unit' project's files keep to a shared module cache (isolate: false)", () => {
  it('refuses module mocks, stubbed globals and env, process.env writes, and fake timers left on', () => {
    const planted = [
      "vi.mock('../../src/platform/logger.js');",
      "vi.doMock('bullmq', () => ({}));",
      "vi.stubEnv('SLACK_BOT_TOKEN', 'xoxb-1');",
      "vi.stubGlobal('fetch', () => undefined);",
      "process.env.REDIS_URL = 'redis://elsewhere';",
      "process.env['LOG_LEVEL'] ??= 'debug';",
      'delete process.env.PORT;',
      'vi.useFakeTimers();',
    ];
    for (const text of planted) {
      const hazards = sharedStateHazards(text);
      expect(hazards, text).toHaveLength(1);
      expect(hazards[0]).toContain("share a worker's module cache");
    }
  });

  it('allows reading process.env, vi.mocked, vi.fn, and fake timers turned off again', () => {
    expect(
      sharedStateHazards(
        [
          "const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';",
          "if (process.env.CI === 'true') skip();",
          'vi.mocked(client.chat.postMessage).mock.calls;',
          'const save = vi.fn();',
          'beforeEach(() => vi.useFakeTimers());',
          'afterEach(() => vi.useRealTimers());',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('finds none in test/unit, test/integration and test/helpers', () => {
    const files = ['test/unit', 'test/integration', 'test/helpers']
      .flatMap((d) => tsFiles(join(root, d)))
      .filter((f) => f !== self);
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) =>
      sharedStateHazards(readFileSync(f, 'utf8')).map((h) => `${relative(root, f)}: ${h}`),
    );
    expect(found).toEqual([]);
  });
});
