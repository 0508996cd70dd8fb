import { quoteToken } from '../../../platform/slack/limits.js';

/**
 * The sections of a weekly digest, and the subscription option that picks them
 * (`/docs-visitors subscribe … sections=visitors,searches`). A channel that names none gets them all.
 */

/** The digest's sections, in the order they appear (named like the reports they summarize). */
export const DIGEST_SECTIONS = ['visitors', 'searches', 'feedback', 'questions'] as const;
/** One of {@link DIGEST_SECTIONS}. */
export type DigestSection = (typeof DIGEST_SECTIONS)[number];

/** What each section is, in help and in the subscription's description. */
const SECTION_TITLES: Readonly<Record<DigestSection, string>> = {
  visitors: 'visitors and the chart',
  searches: 'searches nobody clicked through',
  feedback: 'pages with the most 👎',
  questions: 'unanswered questions that recur',
};

/** True for one of {@link DIGEST_SECTIONS}. */
function isDigestSection(s: unknown): s is DigestSection {
  return typeof s === 'string' && (DIGEST_SECTIONS as readonly string[]).includes(s);
}

/** The sections a run sends: the subscription's (in the digest's order), or all of them. */
export function sectionsOf(chosen: readonly string[] | undefined): DigestSection[] {
  const known = (chosen ?? []).filter(isDigestSection);
  return known.length > 0 ? DIGEST_SECTIONS.filter((s) => known.includes(s)) : [...DIGEST_SECTIONS];
}

/** The option's syntax, for help and mistakes. */
export const SECTIONS_USAGE = `\`sections=${DIGEST_SECTIONS.join(',')}\` (any of them, comma-separated; default all)`;

/**
 * Takes `sections=a,b` out of a subscribe's words.
 * @returns the other words and the sections (undefined when not given), or the ephemeral answer to
 *   a mistake (an unknown section, an empty list, the option twice).
 */
export function takeSectionsOption(
  args: readonly string[],
): { ok: true; rest: string[]; sections?: DigestSection[] } | { ok: false; message: string } {
  const rest: string[] = [];
  let sections: DigestSection[] | undefined;
  for (const arg of args) {
    const m = /^sections?[=:](.*)$/i.exec(arg);
    if (!m) {
      rest.push(arg);
      continue;
    }
    if (sections)
      return {
        ok: false,
        message:
          `:warning: Give \`sections=\` once (\`${quoteToken(arg)}\` is a second one).\n` +
          `*Sections:* ${SECTIONS_USAGE}.`,
      };
    const names = (m[1] ?? '')
      .split(',')
      .map((n) => n.trim().toLowerCase())
      .filter(Boolean);
    const unknown = names.find((n) => !isDigestSection(n));
    if (names.length === 0 || unknown !== undefined) {
      const what =
        unknown !== undefined ? `\`${quoteToken(unknown)}\` is not a digest section` : 'name at least one section';
      return { ok: false, message: `:warning: ${what}.\n*Sections:* ${SECTIONS_USAGE}.` };
    }
    sections = sectionsOf(names);
  }
  return { ok: true, rest, ...(sections ? { sections } : {}) };
}

/** The sections in words, for the subscription's description ("all sections", or their titles). */
export function describeSections(sections: readonly DigestSection[] | undefined): string {
  const chosen = sectionsOf(sections);
  if (chosen.length === DIGEST_SECTIONS.length) return 'all sections';
  return `only ${chosen.map((s) => SECTION_TITLES[s]).join(', ')}`;
}
