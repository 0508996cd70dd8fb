import type { ActionsBlock, ContextActionsBlock, KnownBlock, SectionBlock } from '@slack/types';
import type { AssistantFilter, DocsPage } from '../../platform/docs-api/discovery-schemas.js';
import { safeUrl } from '../../platform/slack/limits.js';
import { escapeReaderText } from '../../platform/slack/markup.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import { scopeText } from '../settings/index.js';

/** `action_id`s of an answer's buttons (Slack: ≤ 255 chars). */
export const ACTION_ASK_FEEDBACK = 'ask.feedback';
export const ACTION_ASK_CHANGE = 'ask.change';
export const ACTION_ASK_DOCUMENT = 'ask.document';
/** `action_id` of **Ask the docs team** (under an unanswered answer, where the channel names its experts). */
export const ACTION_ASK_EXPERTS = 'ask.experts';
/** `action_id` of **Document this answer** (offered once in a thread after the docs team was asked). */
export const ACTION_ASK_DOCUMENT_ANSWER = 'ask.document_answer';
/** Link buttons are acked by the platform (`link.` prefix): the sources are plain links in text, so none here. */

/** Purposes the answer's button values are signed for (`ValueSigner`). */
export const PURPOSE = {
  feedback: 'ask.feedback',
  change: 'ask.change',
  document: 'ask.document',
  modal: 'ask.document-form',
  experts: 'ask.experts',
  documentAnswer: 'ask.document-answer',
  answerModal: 'ask.document-answer-form',
} as const;

/**
 * A click on **Make this a docs change**, read from its signed value alone (no network call): the
 * asker's own (the job starts from the question), someone else's (the Document this form opens for
 * them), or a value the bot did not sign or an older version wrote (`malformed`: no asker in it).
 */
type ChangeClick =
  { kind: 'asker' | 'other'; answerId: string } | { kind: 'unverified'; reason: 'unsigned' | 'tampered' | 'malformed' };

const CHANGE_PAYLOAD = /^([A-Z0-9]{2,40}):([0-9a-f]{16})$/;

/** The value of **Make this a docs change**: `<asker>:<answer id>`, signed for {@link PURPOSE.change}. */
export function changeValue(signer: Pick<ValueSigner, 'sign'>, asker: string, answerId: string): string {
  return signer.sign(PURPOSE.change, `${asker}:${answerId}`);
}

/**
 * Who clicked **Make this a docs change** ({@link ChangeClick}): the one rule that tells the asker
 * from anyone else, used by the listener (before its ack) and the worker alike. Never throws.
 */
export function changeClick(signer: Pick<ValueSigner, 'open'>, value: unknown, user: string): ChangeClick {
  const opened = signer.open(PURPOSE.change, value);
  if (!opened.ok) return { kind: 'unverified', reason: opened.reason };
  const m = CHANGE_PAYLOAD.exec(opened.payload);
  if (!m) return { kind: 'unverified', reason: 'malformed' };
  return { kind: m[1] === user ? 'asker' : 'other', answerId: m[2]! };
}

/** Most sources listed under an answer. */
const MAX_SOURCES = 5;

/** The sentence under an answer the docs could not give. */
export const UNANSWERED_TEXT =
  "_The docs don't seem to cover this._ *Document this* starts a docs change from your question.";
/** The whole answer when the assistant's search found no page: said plainly, no guess, and the next step. */
export const NO_PAGE_TEXT =
  "_The docs don't seem to cover this: I found no page about it, so I won't guess._ " +
  '*Document this* starts a docs change from your question.';
/** The notice that ends a cut-off answer. */
export const CUT_OFF_TEXT = '_The answer was cut off; ask again._';
/** The notice after an answer longer than Slack shows. */
export const TOO_LONG_TEXT = '_The answer was longer than I can show here; the rest is cut._';

/** A docs page's path made safe for a link: `/`-rooted, no spaces or markup; undefined when it is not one. */
function pagePath(path: string): string | undefined {
  const p = path.startsWith('/') ? path : `/${path}`;
  return /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,500}$/.test(p) ? p : undefined;
}

/**
 * The Sources section: up to {@link MAX_SOURCES} pages (first use first, no repeats), each titled
 * (the page's `metadata.title`, else its path) and linked to `DOCS_SITE_URL` + path; without a site
 * URL, the path in code. Titles come from the API and are shown by the rules of reader text
 * (`escapeReaderText`: one line, no markup, mention, link or domain), with or without a site URL.
 */
export function sourcesBlock(pages: DocsPage[], siteUrl: string | undefined): SectionBlock | undefined {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const page of pages) {
    const path = pagePath(page.path);
    if (!path || seen.has(path)) continue;
    seen.add(path);
    const title = escapeReaderText((page.title ?? path).replace(/\|/g, ' '), 120);
    const url = siteUrl ? safeUrl(`${siteUrl.replace(/\/+$/, '')}${path}`) : undefined;
    lines.push(url ? `• <${url}|${title}>` : `• ${title} (\`${path.replace(/`/g, '')}\`)`);
    if (lines.length === MAX_SOURCES) break;
  }
  if (lines.length === 0) return undefined;
  return { type: 'section', text: { type: 'mrkdwn', text: `*Sources*\n${lines.join('\n')}` } };
}

/**
 * The blocks that end an answer: the sources (when any), 👍/👎 (`feedback_buttons`, values
 * `<rating>` signed with the answer id), and either **Make this a docs change** (the asker and the
 * answer id, {@link changeValue}) under an answer, or **Document this** (a form) when the docs had
 * nothing: one way to a docs change under each, so the asker need not choose between two. Values carry ids only
 * (the answer's record is in Redis), signed.
 * Slack: ≤ 50 blocks, button text ≤ 75, value ≤ 2000.
 */
export function answerBlocks(a: {
  answerId: string;
  /** Who asked: signed into Make this a docs change's value. */
  asker: string;
  pages: DocsPage[];
  siteUrl: string | undefined;
  unanswered: boolean;
  signer: ValueSigner;
  /** The channel's docs scope (`/docs-settings scope`), named under the answer when set. */
  scope?: AssistantFilter | undefined;
  /** Whether the channel has a docs team (`/docs-settings experts`): an unanswered answer offers Ask the docs team. */
  experts?: boolean | undefined;
}): KnownBlock[] {
  const sources = a.unanswered ? undefined : sourcesBlock(a.pages, a.siteUrl);
  const inWords = scopeText(a.scope);
  const said = `Answered from this channel's docs scope: ${inWords}.`;
  const scope: KnownBlock[] = inWords ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: said }] }] : [];
  const feedback: ContextActionsBlock = {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: ACTION_ASK_FEEDBACK,
        positive_button: {
          text: { type: 'plain_text', text: '👍' },
          value: a.signer.sign(PURPOSE.feedback, `positive:${a.answerId}`),
          accessibility_label: 'This answer was helpful',
        },
        negative_button: {
          text: { type: 'plain_text', text: '👎' },
          value: a.signer.sign(PURPOSE.feedback, `negative:${a.answerId}`),
          accessibility_label: 'This answer was not helpful',
        },
      },
    ],
  };
  const button = (text: string, action_id: string, purpose: string, style?: 'primary') => ({
    type: 'button' as const,
    text: { type: 'plain_text' as const, text },
    action_id,
    value: a.signer.sign(purpose, a.answerId),
    ...(style ? { style } : {}),
  });
  const change = {
    type: 'button' as const,
    text: { type: 'plain_text' as const, text: 'Make this a docs change' },
    action_id: ACTION_ASK_CHANGE,
    value: changeValue(a.signer, a.asker, a.answerId),
  };
  // Under an answer the docs did not have, Document this is the one way to a docs change.
  const elements = a.unanswered
    ? [
        button('Document this', ACTION_ASK_DOCUMENT, PURPOSE.document, 'primary'),
        ...(a.experts ? [button('Ask the docs team', ACTION_ASK_EXPERTS, PURPOSE.experts)] : []),
      ]
    : [change];
  const actions: ActionsBlock = { type: 'actions', elements };
  return [...(sources ? [sources] : []), ...scope, actions, feedback];
}

/** Usage of `/docs-ask` (an empty question). */
export const DOCS_ASK_USAGE =
  'Ask the docs a question, for example:\n`/docs-ask How do I rotate an API key?`\n' +
  'I post your question here and answer in its thread, with the pages I used. Reply in the thread to ask more.';
