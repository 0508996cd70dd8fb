import { quoteToken } from '../../../platform/slack/limits.js';

/**
 * `project=<id>` in an instruction: which docs project a job goes to. Pure.
 */

/** What {@link takeProjectOption} found. */
type ProjectOption =
  /** No option: the channel's project applies. `instruction` is unchanged. */
  | { ok: true; instruction: string; project?: undefined }
  /** A configured project; `instruction` is the text without the option (spaces tidied). */
  | { ok: true; instruction: string; project: string }
  /** An id that is not configured (or several different ones): `message` is the ephemeral answer. */
  | { ok: false; message: string };

/** `project=<id>` as a word of its own: at the start or after whitespace, up to the next whitespace. */
const OPTION = /(^|\s)project=(\S*)(?=\s|$)/gi;

/**
 * Takes `project=<id>` out of an instruction (anywhere in it; `/docs-edit`, mentions, DMs, the agent
 * view all pass their text through here). The id must be one of `allowed` (DOCS_PROJECT_ID and
 * DOCS_PROJECT_IDS), compared exactly; the same option twice is fine, two different ids are not.
 *
 * @param allowed - the configured projects, the default first.
 * @returns the instruction without the option and the project, or a refusal that lists the allowed
 *   ids. An instruction that is only the option becomes '' (the caller answers with its usage).
 */
export function takeProjectOption(instruction: string, allowed: readonly string[]): ProjectOption {
  const ids = [...instruction.matchAll(OPTION)].map((m) => m[2] ?? '');
  if (ids.length === 0) return { ok: true, instruction };
  const distinct = [...new Set(ids)];
  const list = allowed.map((p) => `\`${p}\``).join(', ');
  if (distinct.length > 1)
    return {
      ok: false,
      message: `A job goes to one docs project; you named ${distinct.length}. Use one \`project=<id>\` of: ${list}. Nothing was started.`,
    };
  const project = distinct[0] ?? '';
  if (!allowed.includes(project)) {
    const shown = project ? `\`${quoteToken(project, 100)}\`` : 'an empty project id';
    return {
      ok: false,
      message: `I don't know the docs project ${shown}. Use \`project=<id>\` with one of: ${list}. Nothing was started.`,
    };
  }
  const rest = instruction
    .replace(OPTION, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
  return { ok: true, instruction: rest, project };
}
