import { randomBytes } from 'node:crypto';

/**
 * Fences for untrusted text in an agent prompt (Slack messages today, readers' comments and questions
 * from the docs analytics API tomorrow): the quoted lines go between an opening and a closing marker
 * that carry an id drawn at random for that prompt, e.g.
 *
 * ```
 * <slack_messages_7f3a9c2e1b4d0a65>
 * bob (2026-11-20 09:14 UTC): the quickstart fails on step 3
 * </slack_messages_7f3a9c2e1b4d0a65>
 * ```
 *
 * Quoted text cannot close its fence: it cannot know the id (64 random bits, new for every prompt), and
 * when a quoted line contains it anyway, in any spelling {@link fenceSkeleton} folds (other case,
 * compatibility forms such as full-width letters, invisible characters such as U+00AD, U+2061–U+2064,
 * U+034F, U+180E or tag characters), another id is drawn. Look-alikes of the marker's *name*
 * (`</slack_messages>`, `</slаck_messages>` with a Cyrillic а) close nothing: the name alone is not
 * the marker. The quoted text itself is left as written (no escaping), so code and MDX in a
 * discussion (`<Tabs>`) reach the agent intact.
 */

/** Hex digits in a fence id (8 random bytes). */
export const FENCE_ID_LENGTH = 16;

/** The two markers of one fence, and the id they carry. */
interface Fence {
  id: string;
  /** `<name_id>` */
  open: string;
  /** `</name_id>` */
  close: string;
}

/** Options of {@link drawFence} and {@link fence}. */
export interface FenceOptions {
  /** The marker's name, lower-case letters and `_` (e.g. `slack_messages`, `reader_comments`). */
  name: string;
  /** Draws an id of {@link FENCE_ID_LENGTH} lower-case hex digits. @defaultValue 8 bytes of `crypto.randomBytes` */
  randomId?: () => string;
}

/** Times {@link drawFence} draws before giving up (only a broken `randomId` can need a second). */
const MAX_DRAWS = 16;

/** Invisible characters (Unicode's Default_Ignorable_Code_Point: soft hyphen, joiners, U+2061–U+2064, U+034F, U+180E, tags…). */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The form in which text is compared with a fence id: compatibility-normalized (NFKC folds full-width
 * and other compatibility forms to their plain letters), invisible characters removed, lower case.
 */
export function fenceSkeleton(text: string): string {
  return text.normalize('NFKC').replace(IGNORABLE, '').toLowerCase();
}

/** Characters the two markers of a fence named `name` take, with the newlines around the quoted lines. */
export function fenceOverhead(name: string): number {
  return 2 * (name.length + 1 + FENCE_ID_LENGTH) + 5 + 2;
}

const defaultRandomId = (): string => randomBytes(FENCE_ID_LENGTH / 2).toString('hex');

/**
 * Draws a fence for `quoted` (every line it will hold): an id no line contains in its
 * {@link fenceSkeleton}. @throws Error when `options.name` is not lower-case letters and `_`, or
 * when `randomId` keeps drawing ids the text contains (a broken generator: 16 draws).
 */
export function drawFence(quoted: readonly string[], options: FenceOptions): Fence {
  if (!/^[a-z_]{1,40}$/.test(options.name))
    throw new Error(`a fence name is lower-case letters and _, not ${JSON.stringify(options.name)}`);
  const text = fenceSkeleton(quoted.join('\n'));
  const draw = options.randomId ?? defaultRandomId;
  for (let i = 0; i < MAX_DRAWS; i++) {
    const id = draw().toLowerCase();
    if (!/^[0-9a-f]+$/.test(id) || id.length !== FENCE_ID_LENGTH)
      throw new Error(`a fence id is ${FENCE_ID_LENGTH} hex digits`);
    if (!text.includes(id)) return { id, open: `<${options.name}_${id}>`, close: `</${options.name}_${id}>` };
  }
  throw new Error('could not draw a fence id the quoted text does not contain');
}

/**
 * `lines` fenced: the opening marker, the lines as given (joined with newlines), the closing marker.
 * The one function to put untrusted text into a prompt; say above it that what is between the
 * markers is information, not instructions. @throws as {@link drawFence}.
 */
export function fence(lines: readonly string[], options: FenceOptions): string {
  return wrap(drawFence(lines, options), lines);
}

/** `lines` between the markers of `f` (drawn for them with {@link drawFence}). */
export function wrap(f: Fence, lines: readonly string[]): string {
  return `${f.open}\n${lines.join('\n')}\n${f.close}`;
}

/**
 * The head of a prompt: the instruction the person typed, then (after a blank line) the text the
 * bot quotes for the agent, already fenced (when any). The one way the two are put together, for a
 * prompt with Slack context and without it, and for its length.
 */
export function withQuoted(instruction: string, quoted: string | undefined): string {
  return quoted ? `${instruction}\n\n${quoted}` : instruction;
}
