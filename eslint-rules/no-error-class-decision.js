/**
 * `local/no-error-class-decision`: `err instanceof SomethingError` decides on an error's class, where
 * the project decides on its code (`hasCode`/`errorCode` of src/platform/errors.ts; the
 * `@slack/web-api` `ErrorCode` style): each error kind has a code of its own, so the class adds
 * nothing to a decision and ties it to one copy of one module. Flags `instanceof` whose right side is
 * a name ending in `Error` (or `x.SomethingError`), except JavaScript's own error classes, which carry
 * no code. A foreign error with no code at all is read once, where its library's errors become codes,
 * with an `eslint-disable-next-line` comment saying so. CONTRIBUTING.md ("Layering rules").
 * @type {import('eslint').Rule.RuleModule}
 */
export default {
  meta: {
    type: 'problem',
    docs: { description: 'Disallow deciding on an error by its class (instanceof …Error): decide on its code' },
    messages: {
      byClass:
        "Decide on the error's code, not its class: hasCode(err, …ErrorCode.…) or errorCode(err) from " +
        'src/platform/errors.ts instead of `instanceof {{name}}`.',
    },
    schema: [],
  },
  create(context) {
    return {
      BinaryExpression(node) {
        if (node.operator !== 'instanceof') return;
        const name = className(node.right);
        if (!name || !/Error$/.test(name) || BUILT_IN.has(name)) return;
        context.report({ node, messageId: 'byClass', data: { name } });
      },
    };
  },
};

/** JavaScript's own error classes (ECMA-262 "Native Error Types", AggregateError) and DOMException's kin: no codes to read. */
const BUILT_IN = new Set([
  'Error',
  'AggregateError',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
]);

/** The class name on the right of `instanceof`: `Name` or the property of `ns.Name`. */
function className(node) {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier')
    return node.property.name;
  return undefined;
}
