import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The composition root builds bottom up (docs/architecture.md "Wiring order"): inside each builder
 * (buildPlatform in src/platform/runtime.ts, buildFeatures in src/compose.ts, startBot in
 * src/main.ts), a value may be used — directly or from a callback handed to a feature — only
 * once it is built, i.e. declared above the statement that uses it. A callback that reaches a
 * later-built feature (the old mutable `late` object, or `() => digests.x` before `digests`) is a
 * run-time cycle the import lint cannot see; TypeScript accepts it, this test does not.
 */
const BUILDERS = ['buildPlatform', 'buildFeatures', 'startBot'];

/** For each builder: `name used in statement N, declared in statement M > N`, and `late` objects. */
function earlyUses(source: string): string[] {
  const file = ts.createSourceFile('main.ts', source, ts.ScriptTarget.ES2022, true);
  const problems: string[] = [];
  const builders = file.statements.filter(
    (s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && BUILDERS.includes(s.name?.text ?? ''),
  );
  for (const fn of builders) {
    const statements = fn.body?.statements ?? ts.factory.createNodeArray();
    const declaredAt = new Map<string, number>();
    statements.forEach((st, i) => {
      if (!ts.isVariableStatement(st)) return;
      for (const d of st.declarationList.declarations) {
        const names = ts.isIdentifier(d.name)
          ? [d.name.text]
          : ts.isObjectBindingPattern(d.name)
            ? d.name.elements.map((e) => e.name.getText(file))
            : [];
        for (const n of names) {
          declaredAt.set(n, i);
          if (n === 'late') problems.push(`${fn.name?.text}: a mutable 'late' object`);
        }
      }
    });
    statements.forEach((st, i) => {
      const visit = (node: ts.Node): void => {
        const isPropertyName =
          (ts.isPropertyAccessExpression(node.parent) || ts.isPropertyAssignment(node.parent)) &&
          node.parent.name === node;
        if (ts.isIdentifier(node) && !isPropertyName) {
          const at = declaredAt.get(node.text);
          const isDeclarationName = ts.isVariableDeclaration(node.parent) || ts.isBindingElement(node.parent);
          if (at !== undefined && at > i && !isDeclarationName)
            problems.push(
              `${fn.name?.text}: '${node.text}' is used in statement ${i + 1} but built in statement ${at + 1}`,
            );
        }
        ts.forEachChild(node, visit);
      };
      visit(st);
    });
  }
  return problems;
}

/** The composition root's files, each with the builders it must hold. */
const ROOT_FILES: Record<string, string[]> = {
  'src/platform/runtime.ts': ['buildPlatform'],
  'src/compose.ts': ['buildFeatures'],
  'src/main.ts': ['startBot'],
};

describe('the composition root (src/main.ts, src/compose.ts, src/platform/runtime.ts)', () => {
  it('uses nothing before it is built, and has no late object', () => {
    for (const [path, builders] of Object.entries(ROOT_FILES)) {
      const source = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
      for (const b of builders) expect(source, `${path} holds ${b}`).toMatch(new RegExp(`function ${b}\\(`));
      expect(earlyUses(source), path).toEqual([]);
    }
  });

  it('would catch a callback reaching a feature built after it, and a late object', () => {
    const cyclic = `
      function buildFeatures(p) {
        const settings = createSettings({ describeDigest: (c) => digests.describe(c) });
        const late = {};
        const digests = createDigests({ projectFor: settings.projectFor });
        return { settings, digests, late };
      }`;
    expect(earlyUses(cyclic)).toEqual([
      "buildFeatures: a mutable 'late' object",
      "buildFeatures: 'digests' is used in statement 1 but built in statement 3",
    ]);
  });
});
