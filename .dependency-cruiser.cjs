/**
 * The layering of src/ and the top-level sandbox/ (see docs/architecture.md), checked by `npm run lint`:
 *   features → platform, never platform → features; a feature uses another feature only through
 *   its index.ts (and the rest of ask its answer writer only through answer/index.ts); nothing but
 *   the sandbox imports the sandbox; production code never imports tests;
 *   no import cycles (type-only imports included).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: split the shared part out, or pass it in (main.ts composes).',
      from: { path: '^(src|sandbox)/' },
      to: { circular: true },
    },
    {
      name: 'platform-knows-no-feature',
      severity: 'error',
      comment: 'src/platform/ is below every feature: it must not import one. Pass what it needs as a parameter.',
      from: { path: '^src/platform/' },
      to: { path: '^src/features/' },
    },
    {
      name: 'features-meet-through-index',
      severity: 'error',
      comment:
        "A feature may use another feature only through that feature's index.ts (the one at its root: a sub-area's index.ts is for its own feature).",
      from: { path: '^src/features/([^/]+)/' },
      to: { path: '^src/features/[^/]+/', pathNot: ['^src/features/$1/', '^src/features/[^/]+/index\\.ts$'] },
    },
    {
      name: 'ask-answer-writer-through-index',
      severity: 'error',
      comment:
        "ask's answer writer (src/features/ask/answer/) is entered through its index.ts only: the rest of the feature queues answers and starts its worker there.",
      from: { path: '^src/features/ask/', pathNot: '^src/features/ask/answer/' },
      to: { path: '^src/features/ask/answer/', pathNot: '^src/features/ask/answer/index\\.ts$' },
    },
    {
      name: 'production-never-imports-the-sandbox',
      severity: 'error',
      comment: 'sandbox/ holds the fakes and the sandbox runner (development tooling, not shipped): production code in src/ must not depend on them.',
      from: { path: '^src/' },
      to: { path: '^sandbox/' },
    },
    {
      name: 'production-never-imports-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
