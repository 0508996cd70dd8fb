/**
 * A channel's docs scope as typed after `/docs-settings scope` and as shown back: the discovery
 * API's assistant `filter` (spec: discovery-openapi.json, POST /v2/assistant/{domain}/message:
 * `version` and `language` strings, `groups` an array of strings). Pure: no network.
 */
import { quoteToken } from '../../platform/slack/limits.js';
import type { DocsScope } from './store.js';

/** What a scope value may be: letters, digits, `.`, `_`, `-`, `/`, at most 64 characters. */
const VALUE = /^[\p{L}\p{N}._/-]{1,64}$/u;
/** Most groups in a scope. */
const SCOPE_MAX_GROUPS = 20;

/** How a scope is typed, for the usage. */
export const SCOPE_USAGE = 'scope version=V language=L groups=A,B|off';

/**
 * Parses what follows `scope`: `off` (or `default`), or one or more of `version=<v>`,
 * `language=<l>`, `groups=<a,b,…>`, each once (keys case-insensitive, values exact).
 * @returns the scope (`null`: off), or why it is refused (a sentence, the token quoted inertly).
 */
export function parseScope(words: readonly string[]): { scope: DocsScope | null } | { error: string } {
  const [first] = words;
  if (first === undefined) return { error: `Say \`${SCOPE_USAGE}\`.` };
  if (words.length === 1 && ['off', 'default'].includes(first.toLowerCase())) return { scope: null };
  const scope: DocsScope = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    const key = eq > 0 ? word.slice(0, eq).toLowerCase() : '';
    const value = eq > 0 ? word.slice(eq + 1) : '';
    if (!['version', 'language', 'groups'].includes(key))
      return { error: `\`${quoteToken(word)}\` is not \`version=…\`, \`language=…\` or \`groups=…\`.` };
    if (key in scope) return { error: `\`${key}\` is given twice.` };
    if (key === 'groups') {
      const groups = value.split(',').filter(Boolean);
      const bad = groups.find((g) => !VALUE.test(g));
      if (!groups.length || bad !== undefined)
        return { error: `\`${quoteToken(bad ?? word)}\` is not a group name (letters, digits, \`._/-\`).` };
      if (groups.length > SCOPE_MAX_GROUPS) return { error: `At most ${SCOPE_MAX_GROUPS} groups.` };
      scope.groups = [...new Set(groups)];
    } else {
      if (!VALUE.test(value))
        return { error: `\`${quoteToken(word)}\` needs a value of letters, digits or \`._/-\` (at most 64).` };
      scope[key as 'version' | 'language'] = value;
    }
  }
  return { scope };
}

/**
 * A scope in words, for Slack (values in inline code, made inert with `quoteToken`):
 * "version `v2`, language `fr`, groups `a`, `b`"; undefined for no scope.
 */
export function scopeText(scope: DocsScope | undefined): string | undefined {
  if (!scope) return undefined;
  const parts: string[] = [];
  if (scope.version) parts.push(`version \`${quoteToken(scope.version)}\``);
  if (scope.language) parts.push(`language \`${quoteToken(scope.language)}\``);
  if (scope.groups?.length) parts.push(`groups ${scope.groups.map((g) => `\`${quoteToken(g)}\``).join(', ')}`);
  return parts.length ? parts.join(', ') : undefined;
}
