/**
 * The preview message (pure builders): one thread reply per job, edited in place as its preview is
 * queued, built, ready or failed. Everything the docs API sends (URL, branch, file paths, summary,
 * log lines) is shown as inert text: escaped reader text, in inline code or a code block, links
 * only where {@link changedFiles} and {@link previewBase} allow them (and the screenshot's https
 * link).
 */
import type { KnownBlock } from '@slack/types';
import { escapeMrkdwn, safeUrl, SLACK_LIMITS, truncate } from '../../../platform/slack/limits.js';
import { escapeReaderText } from '../../../platform/slack/markup.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { changedFiles, filesText, inertPath, previewBase } from './pages.js';
import type { PreviewRecord } from './record.js';

/** `action_id` of "Ask the agent to fix the build". */
export const ACTION_PREVIEW_FIX = 'agent_jobs.preview_fix';
/** What the fix button's value is signed for (`<jobId>:<cycle>`). */
export const PREVIEW_FIX_PURPOSE = 'agent-jobs.preview-fix';
/** Where people follow a deployment when the bot stops watching it (the vendor's dashboard). */
export const DASHBOARD_URL = 'https://dashboard.mintlify.com';
/** Log lines a failed build shows (the last ones), each cut to {@link LOG_LINE_CHARS}. */
const LOG_LINES_SHOWN = 12;
const LOG_LINE_CHARS = 200;
const LOG_BLOCK_CHARS = 2_400;

/**
 * The last lines of a build log as the inside of a code block: no backticks, each line cut to
 * {@link LOG_LINE_CHARS}, then cut from the start to {@link LOG_BLOCK_CHARS} (the end of a log says
 * why it failed) and only then escaped, so a cut never splits an entity such as `&amp;`.
 */
export function logTail(lines: readonly string[] | undefined): string {
  const tail = (lines ?? []).slice(-LOG_LINES_SHOWN).map((l) => truncate(l.replace(/`/g, "'"), LOG_LINE_CHARS));
  const raw = tail.join('\n');
  const text = escapeMrkdwn(raw);
  if (text.length <= LOG_BLOCK_CHARS) return text;
  // Keep the longest raw end whose escaped form fits after the '…' (never starting inside a surrogate pair).
  let start = raw.length;
  for (let used = 1; start > 0; start--) {
    used += escapeMrkdwn(raw[start - 1]!).length;
    if (used > LOG_BLOCK_CHARS) break;
  }
  if (/^[\uDC00-\uDFFF]/.test(raw.slice(start))) start++;
  return `…${escapeMrkdwn(raw.slice(start))}`;
}

/** A mrkdwn section of `text` (already made inert by the caller), cut to Slack's section limit. */
function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, SLACK_LIMITS.sectionText) } };
}

/** " of `branch`" (the branch as inert inline code) for the message's sentences, or '' without a branch. */
function branchText(r: PreviewRecord): string {
  return r.branch ? ` of ${inertPath(r.branch)}` : '';
}

/** The "Preview ↗" link, or a sentence when the URL is not a safe https link. */
function previewLink(r: PreviewRecord): string {
  const base = previewBase(r.previewUrl);
  if (base) return `*<${base}|Preview ↗>*`;
  return '*Preview ready* (the docs service sent an address I cannot link safely; find it on the docs platform)';
}

function readyBlocks(r: PreviewRecord): KnownBlock[] {
  const files = changedFiles(r.files, r.previewUrl);
  const blocks = [section(`${previewLink(r)}${branchText(r)}${r.cycle > 0 ? ' · rebuilt after the follow-up' : ''}`)];
  if (files.length) blocks.push(section(`Changed in this commit:\n${filesText(files)}`));
  // A link, not an `image` block: Slack refuses a whole message whose image it cannot download
  // (`invalid_blocks`, "downloading image failed"), which would leave the preview on "Building…".
  const shot = safeUrl(r.screenshot);
  if (shot?.startsWith('https://'))
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${shot}|Screenshot ↗>` }] });
  return blocks;
}

function failedBlocks(r: PreviewRecord, signer: Pick<ValueSigner, 'sign'>): KnownBlock[] {
  // Reader text: escaped, and nothing Slack would link or format (URLs, #channels, @here, *bold*).
  const summary = r.summary ? escapeReaderText(r.summary, 300) : '';
  const blocks = [section(`:x: *The preview build failed*${branchText(r)}${summary ? `: ${summary}` : ''}`)];
  const log = logTail(r.logs);
  if (log) blocks.push(section(`Last lines of the build log:\n\`\`\`\n${log}\n\`\`\``));
  blocks.push({
    type: 'actions',
    elements: [
      {
        type: 'button',
        text: { type: 'plain_text', text: 'Ask the agent to fix the build' },
        action_id: ACTION_PREVIEW_FIX,
        value: signer.sign(PREVIEW_FIX_PURPOSE, `${r.jobId}:${r.cycle}`),
      },
    ],
  });
  return blocks;
}

/**
 * The preview message of `r`'s stage. `text` is the notification and the fallback for clients
 * without blocks; it never carries a link.
 */
export function previewMessage(
  r: PreviewRecord,
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  switch (r.stage) {
    case 'queued':
      return one(
        `:hourglass_flowing_sand: *Preview queued*${branchText(r)}: the docs platform takes 5 preview requests a minute, and this one waits its turn.`,
      );
    case 'building':
      return one(
        `:building_construction: *${r.cycle > 0 ? 'Rebuilding the preview' : 'Building a preview'}…*${branchText(r)}`,
      );
    case 'ready':
      return { text: 'Preview ready', blocks: readyBlocks(r) };
    case 'failed':
      return { text: 'The preview build failed', blocks: failedBlocks(r, signer) };
    case 'slow':
      return one(
        `:warning: The preview${branchText(r)} is taking longer than usual, so I stopped watching it. Follow it on the <${DASHBOARD_URL}|docs dashboard>.`,
      );
    case 'uncertain':
      return one(
        `:warning: I lost the docs service's answer to the request for a preview${branchText(r)} (I was stopped while asking), so I can't tell whether it is building, and I won't ask twice. Follow it on the <${DASHBOARD_URL}|docs dashboard>. The pull request itself is ready.`,
      );
    case 'not_started':
      return one(
        `:warning: The preview${branchText(r)} could not be started: the docs service did not answer. The pull request itself is ready.`,
      );
  }
}

function one(text: string): { text: string; blocks: KnownBlock[] } {
  // The notification: no link, no bold.
  const plain = text.replace(/<[^|>]+\|([^>]+)>/g, '$1').replace(/\*/g, '');
  return { text: plain, blocks: [section(text)] };
}
