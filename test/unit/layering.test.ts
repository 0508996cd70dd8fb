import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
/** The rules `npm run lint` applies (depcruise src sandbox --config .dependency-cruiser.cjs). */
const rules = require('../../.dependency-cruiser.cjs') as { forbidden: IForbiddenRuleType[] };

async function cruiseSrc(baseDir: string): Promise<ICruiseResult> {
  const { output } = await cruise(
    ['src', 'sandbox'],
    { baseDir, validate: true, tsPreCompilationDeps: true, ruleSet: { forbidden: rules.forbidden } },
    { extensions: ['.ts', '.js'] },
  );
  return output as ICruiseResult;
}

const named = (r: ICruiseResult) => r.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();

describe('the layering rules of npm run lint (.dependency-cruiser.cjs)', () => {
  it('catch a cycle, a platform → feature import, a feature reaching into another (or into its sub-area), and production importing the sandbox', async () => {
    const result = await cruiseSrc(fileURLToPath(new URL('../fixtures/layering', import.meta.url)));
    expect(named(result)).toEqual([
      'features-meet-through-index: src/features/reports/peek.ts → src/features/jobs/store.ts',
      'features-meet-through-index: src/features/reports/watch.ts → src/features/jobs/poll/index.ts',
      'no-circular: src/features/jobs/service.ts → src/features/jobs/store.ts',
      'platform-knows-no-feature: src/platform/clock.ts → src/features/reports/index.ts',
      'production-never-imports-the-sandbox: src/platform/ports.ts → sandbox/fake.ts',
    ]);
  });

  it('find nothing in the project itself, having resolved its imports', async () => {
    const result = await cruiseSrc(fileURLToPath(new URL('../..', import.meta.url)));
    expect(named(result)).toEqual([]);
    expect(result.summary.totalCruised).toBeGreaterThan(50);
    const unresolved = result.modules.flatMap((m) =>
      m.dependencies
        .filter((d) => d.couldNotResolve && d.module.startsWith('.'))
        .map((d) => `${m.source} → ${d.module}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('lint fails on a planted silent .catch, each form, and passes the ones a comment or a log explains', async () => {
    // The project's own eslint.config.js, with the fixture tree as its base (patterns are relative to
    // cwd with an explicit config file); `ignore: false`, as the project's lint leaves test/fixtures out.
    const eslint = new ESLint({
      cwd: fileURLToPath(new URL('../fixtures/layering', import.meta.url)),
      overrideConfigFile: fileURLToPath(new URL('../../eslint.config.js', import.meta.url)),
      ignore: false,
    });
    const [result] = await eslint.lintFiles(['src/features/reports/retry.ts']);
    const found = result!.messages.map((m) => `${m.ruleId ?? m.message}: line ${m.line}`);
    expect(found).toEqual([7, 8, 9, 10, 11].map((line) => `local/no-silent-catch: line ${line}`));
  });

  it('lint fails on a planted decision by error class (instanceof …Error), and passes decisions by code and on built-in errors', async () => {
    const eslint = new ESLint({
      cwd: fileURLToPath(new URL('../fixtures/layering', import.meta.url)),
      overrideConfigFile: fileURLToPath(new URL('../../eslint.config.js', import.meta.url)),
      ignore: false,
    });
    const [result] = await eslint.lintFiles(['src/features/reports/decide.ts']);
    const found = result!.messages.map((m) => `${m.ruleId ?? m.message}: line ${m.line}`);
    expect(found).toEqual([8, 9, 10].map((line) => `local/no-error-class-decision: line ${line}`));
  });
});
