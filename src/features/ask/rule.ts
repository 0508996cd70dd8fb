/**
 * The mention rule: whether an @mention or a DM to the bot is a question for the docs or a change
 * to them. Deterministic (no model, no network) and documented in docs/using.md ("The mention
 * rule"), so people can predict it; a wrong guess costs one click ("Make this a docs change" under
 * every answer; every job started from a mention says how to ask instead).
 */

/** What a mention or DM is taken for. */
type MessageKind = 'question' | 'change';

/** First words that make a question (English interrogatives and auxiliaries that open a yes/no question). */
const INTERROGATIVES: ReadonlySet<string> = new Set([
  'how',
  'what',
  "what's",
  'whats',
  'why',
  'when',
  'where',
  "where's",
  'which',
  'who',
  "who's",
  'whom',
  'whose',
  'is',
  'are',
  'am',
  'was',
  'were',
  'do',
  'does',
  'did',
  'can',
  'could',
  'should',
  'would',
  'will',
  'shall',
  'may',
  'might',
  'must',
  'has',
  'have',
  'had',
  "isn't",
  "aren't",
  "doesn't",
  "don't",
  "didn't",
  "can't",
  "won't",
  "shouldn't",
  "wouldn't",
  "couldn't",
  'any',
  'anyone',
  'explain',
]);

/** First words that make a change (imperative verbs of editing). */
const IMPERATIVES: ReadonlySet<string> = new Set([
  'add',
  'update',
  'fix',
  'change',
  'write',
  'document',
  'create',
  'remove',
  'delete',
  'rename',
  'rewrite',
  'edit',
  'improve',
  'clarify',
  'move',
  'replace',
  'correct',
  'draft',
  'expand',
  'shorten',
  'simplify',
  'reword',
  'restructure',
  'merge',
  'split',
  'translate',
  'review',
  'revise',
  'mention',
  'note',
  'insert',
  'drop',
  'deprecate',
  'link',
  'make',
  'put',
  'include',
  'set',
  'bump',
  'refresh',
  'polish',
  'proofread',
  'cover',
  'describe',
  'list',
  'find',
]);

/** Words skipped at the start: greetings and politeness ("hi", "hey", "please"). */
const OPENERS: ReadonlySet<string> = new Set(['hi', 'hey', 'hello', 'ok', 'okay', 'so', 'quick', 'question', 'q']);
/** "please …" and "pls …" open a request. */
const POLITE: ReadonlySet<string> = new Set(['please', 'pls', 'plz', 'kindly']);
/** "can you …", "could you …": a request when an imperative verb follows. */
const REQUEST_AUX: ReadonlySet<string> = new Set(['can', 'could', 'would', 'will']);

/** The words of `text`, lower case, without Slack mentions, links, channel names and code. */
function words(text: string): string[] {
  const plain = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .toLowerCase()
    .replace(/[’‘]/g, "'");
  return plain.match(/[a-z][a-z']*/g) ?? [];
}

/** Which step of the mention rule decided (see {@link classifyMention}). */
type MentionRuleStep = 'please' | 'can-you-verb' | 'interrogative' | 'imperative' | 'question-mark' | 'otherwise';

/** The mention rule's verdict and the step that gave it (the steps of {@link classifyMention}). */
function mentionRuleStep(text: string): { kind: MessageKind; step: MentionRuleStep } {
  let w = words(text);
  while (w.length > 1 && OPENERS.has(w[0]!)) w = w.slice(1);
  const [first = '', second = '', third = '', fourth = ''] = w;
  if (POLITE.has(first)) return { kind: 'change', step: 'please' };
  if (REQUEST_AUX.has(first) && second === 'you') {
    const verb = third === 'please' ? fourth : third;
    if (IMPERATIVES.has(verb)) return { kind: 'change', step: 'can-you-verb' };
  }
  if (INTERROGATIVES.has(first)) return { kind: 'question', step: 'interrogative' };
  if (IMPERATIVES.has(first)) return { kind: 'change', step: 'imperative' };
  const trimmed = text.replace(/<[^>]*>/g, '').trim();
  if (/\?[\s)\]"'`*_~.!]*$/.test(trimmed)) return { kind: 'question', step: 'question-mark' };
  return { kind: 'change', step: 'otherwise' };
}

/**
 * The mention rule, in order (the first that applies decides):
 * 1. greetings at the start are skipped ("hi", "hey", "hello", "ok", "so", "quick question");
 * 2. "please …" (or "pls", "kindly") → a change;
 * 3. "can/could/would/will you [please] <verb of editing> …" → a change ("can you add an example?");
 * 4. an interrogative first word ("how", "what", "why", "which", "is", "does", "can", …; see
 *    {@link INTERROGATIVES}) → a question;
 * 5. an imperative first word ("add", "fix", "update", "document", …; see {@link IMPERATIVES}) → a change;
 * 6. a question mark at the end → a question;
 * 7. anything else → a change (what the bot did with every mention before it could answer questions).
 * Mentions, links, channel names and inline code are not words here.
 * @param text - the message as Slack sent it, with or without the bot's mention.
 */
export function classifyMention(text: string): MessageKind {
  return mentionRuleStep(text).kind;
}

/**
 * Whether a message in a question channel reads as a change request: the mention rule decides
 * "change" by what it says (steps 2, 3 or 5: "please …", "can you add …", "add …"), not by default
 * (step 7): in a question channel a message that is neither is taken as a question.
 */
export function readsAsChangeRequest(text: string): boolean {
  const { kind, step } = mentionRuleStep(text);
  return kind === 'change' && step !== 'otherwise';
}
