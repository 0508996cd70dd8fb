import type { SuggestedPrompt } from '../../platform/slack/agent-surface.js';

/**
 * The Messages tab's standing suggestions: each is a docs job whose instruction does what its title
 * says (clicking one sends `message` as the person, which starts that job). The same prompts are
 * declared in manifest.yml (`features.agent_view.suggested_prompts`); a test keeps them in step.
 */
export const STANDING_PROMPTS: readonly SuggestedPrompt[] = [
  {
    title: 'Fix typos and broken links',
    message: 'Find and fix typos, grammar mistakes and broken links across the docs.',
  },
  {
    title: 'Make the quickstart clearer',
    message:
      'Review the quickstart: make every step clear for a first-time reader and check that its code samples run as written.',
  },
  {
    title: 'Add missing API examples',
    message: 'Find API reference pages without a code example and add a short, working example to each.',
  },
];

/** The question among the suggestions while asking the docs is on (it is answered, not made a job: it asks). */
export const QUESTION_PROMPT: SuggestedPrompt = {
  title: 'Ask the docs a question',
  message: 'What do the docs cover, and where should I start?',
};

/** Title above the suggestions in the Messages tab. */
export const PROMPTS_TITLE = 'Ask the docs agent';

/**
 * The offer for a channel the person is looking at: its latest discussion, by permalink, so that
 * the click starts a job under the same rules as any message link (the linked thread is read only
 * when the requester is in its conversation and the bot can read it).
 */
export function latestDiscussionPrompt(channelName: string, permalink: string): SuggestedPrompt {
  return {
    title: `Document the latest discussion in #${channelName}`,
    message: `Document the latest discussion in #${channelName}: ${permalink}`,
  };
}

/**
 * The suggestions to set: the channel's offer first (when there is one), then a question (while
 * asking is on), then the standing ones, 4 at most (Slack's limit).
 */
export function promptsFor(offer: SuggestedPrompt | undefined, askEnabled = false): SuggestedPrompt[] {
  return [...(offer ? [offer] : []), ...(askEnabled ? [QUESTION_PROMPT] : []), ...STANDING_PROMPTS].slice(0, 4);
}

/** A latest-discussion suggestion as Slack delivers it when clicked (its permalink may come as `<url>`). */
const LATEST_DISCUSSION = /^Document the latest discussion in #[^\s:]{1,80}: <?https:\/\/\S+>?$/;

/**
 * What a DM's text is when it is one of the bot's own suggestions, sent by a click in the Messages
 * tab (or typed the same): `job` for a docs change it offers (the standing prompts, a channel's
 * latest discussion), `question` for {@link QUESTION_PROMPT}; undefined for anything else. Routing
 * takes the suggestion at its word instead of guessing from its phrasing.
 */
export function suggestionKind(text: string): 'job' | 'question' | undefined {
  const t = text.trim();
  if (t === QUESTION_PROMPT.message) return 'question';
  if (STANDING_PROMPTS.some((p) => p.message === t) || LATEST_DISCUSSION.test(t)) return 'job';
  return undefined;
}
