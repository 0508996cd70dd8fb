import { bench, describe } from 'vitest';
import { formatThread, linesOf, threadLines, type ThreadMessage } from '../src/features/thread-context/format.js';
import { assemblePrompt, fitLines } from '../src/features/thread-context/prompt.js';

/**
 * Thread context: turning a thread into prompt lines (markup to plain text, names from a cached
 * lookup) and fitting it to AGENT_PROMPT_MAX_CHARS (12,000), for a short discussion (20 messages)
 * and a long one (2,000 messages, 10 pages of conversations.replies), side by side; and the long
 * one fitted as the prompt builds it (formatting only the lines kept) beside formatting every line first.
 */
const names: Record<string, string> = { U1: 'alice', U2: 'bob', U3: 'carol' };
const lookup = async (id: string) => names[id];
const self = { userId: 'UBOT', botId: 'BBOT' };

function thread(n: number): ThreadMessage[] {
  return Array.from({ length: n }, (_, i) => ({
    ts: `${1_700_000_000 + i}.000100`,
    user: `U${(i % 3) + 1}`,
    text: `<@U${((i + 1) % 3) + 1}> see <https://docs.acme.dev/page-${i}|page ${i}> in <#C1|docs> &amp; check the &lt;Tabs&gt; example, step ${i} of the rollout`,
    ...(i % 50 === 0
      ? { files: [{ name: `log-${i}.txt`, permalink: `https://acme.slack.com/files/U1/F${i}/log.txt` }] }
      : {}),
  }));
}

const short = thread(20);
const long = thread(2_000);
const longLines = await formatThread(long, self, lookup);
const fitted = await assemblePrompt(
  'Document the rollout',
  [{ source: 'the thread', lines: linesOf(longLines) }],
  12_000,
);
console.log(
  `\n2,000-message thread: ${longLines.join('\n').length} chars of context → a ${fitted.stats.promptChars}-char prompt with ${fitted.stats.messages} messages kept, ${fitted.stats.omitted} omitted\n`,
);

describe('thread context', () => {
  bench('format 20 messages', async () => {
    await formatThread(short, self, lookup);
  });
  bench('format 2,000 messages', async () => {
    await formatThread(long, self, lookup);
  });
  bench('fit 2,000 formatted lines to 12,000 chars', async () => {
    await fitLines(linesOf(longLines), 12_000);
  });
  bench('2,000 messages to a 12,000-char prompt: format all, then fit (baseline)', async () => {
    await fitLines(linesOf(await formatThread(long, self, lookup)), 12_000);
  });
  bench('2,000 messages to a 12,000-char prompt: fit, formatting only the lines kept', async () => {
    await fitLines(threadLines(long, self, lookup), 12_000);
  });
});
