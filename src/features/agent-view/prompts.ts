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
