/**
 * `local/no-silent-catch`: a `.catch(…)` whose handler does nothing — `() => undefined`,
 * `() => {}`, `() => null`, `() => void 0`, whatever its parameters — swallows an error without a
 * trace. Log it at warn with the error, or say in a comment why nothing can be done: on the line of
 * the `.catch` (or of its handler), on the line before it, on the line before a statement holding it
 * that starts at most three lines above it, or inside the handler's braces. CONTRIBUTING.md ("Layering rules").
 * @type {import('eslint').Rule.RuleModule}
 */
export default {
  meta: {
    type: 'problem',
    docs: { description: 'Disallow a .catch that drops the error without a comment saying why' },
    messages: {
      silent:
        'This .catch drops the error silently: log it at warn with the error, or say in a comment on this line ' +
        'or the line before why nothing can be done.',
    },
    schema: [],
  },
  create(context) {
    const source = context.sourceCode;
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.computed) return;
        if (callee.property.type !== 'Identifier' || callee.property.name !== 'catch') return;
        const handler = node.arguments[0];
        if (!handler || !doesNothing(handler)) return;
        if (explained(source, node, callee.property, handler)) return;
        context.report({ node: callee.property, messageId: 'silent' });
      },
    };
  },
};

/** Whether a handler is a function that does nothing with what it is given. */
function doesNothing(fn) {
  if (fn.type !== 'ArrowFunctionExpression' && fn.type !== 'FunctionExpression') return false;
  const body = fn.body;
  if (body.type === 'BlockStatement') return body.body.length === 0;
  if (body.type === 'Identifier') return body.name === 'undefined';
  if (body.type === 'Literal') return body.value === null && body.raw === 'null';
  return body.type === 'UnaryExpression' && body.operator === 'void' && body.argument.type === 'Literal';
}

/** Whether a comment (not an eslint directive) explains the catch: see the module comment for where. */
function explained(source, call, property, handler) {
  const first = property.loc.start.line;
  const last = handler.loc.end.line;
  const before = new Set([first - 1, call.loc.start.line - 1]);
  for (const s of enclosingStatements(call))
    if (s.loc.start.line >= first - NEAR_LINES) before.add(s.loc.start.line - 1);
  return source.getAllComments().some((c) => {
    if (/^\s*eslint/.test(c.value) || c.value.trim() === '') return false;
    const inside = c.range[0] >= handler.range[0] && c.range[1] <= handler.range[1];
    const onTheLine = c.loc.start.line >= first && c.loc.start.line <= last;
    return inside || onTheLine || before.has(c.loc.end.line);
  });
}

/** How far above the `.catch` a statement holding it may start for the comment before it to count, in lines. */
const NEAR_LINES = 3;

/** The statements (and class members) a node is part of, innermost first, up to its function. */
function* enclosingStatements(node) {
  for (let n = node.parent; n && !/Function/.test(n.type); n = n.parent) {
    if (/Statement$|Declaration$|^PropertyDefinition$/.test(n.type)) yield n;
  }
}
