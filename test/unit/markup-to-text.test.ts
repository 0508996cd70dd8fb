import { describe, expect, it } from 'vitest';
import { markupToText, mentionsUser } from '../../src/platform/slack/markup.js';

const names: Record<string, string> = { U0ALICE: 'alice', U0BOB: 'bob' };
const lookup = async (id: string) => names[id];

describe('markupToText', () => {
  it('removes the bot mention and names people', async () => {
    expect(await markupToText('<@U0BOT> also add a Go example, ask <@U0BOB>', 'U0BOT', lookup)).toBe(
      'also add a Go example, ask @bob',
    );
  });
  it('turns channel links, labelled links and bare links into text', async () => {
    expect(
      await markupToText('see <#C1|docs> and <https://x.dev/a?b=1|the guide> or <https://y.dev>', 'U0BOT', lookup),
    ).toBe('see #docs and the guide (https://x.dev/a?b=1) or https://y.dev');
  });
  it('unescapes &amp; &lt; &gt; after the markup is gone', async () => {
    expect(await markupToText('use a &lt;Tabs&gt; component &amp; keep <@U0ALICE>', undefined, lookup)).toBe(
      'use a <Tabs> component & keep @alice',
    );
  });
  it('handles special mentions, mailto, labels for unknown users and user groups', async () => {
    expect(
      await markupToText('<!here> mail <mailto:a@b.dev|a@b.dev>, <@U9|zed>, <!subteam^S1|@writers>', 'U0BOT', lookup),
    ).toBe('@here mail a@b.dev, @zed, @writers');
  });
  it('falls back to the id when the lookup fails', async () => {
    expect(
      await markupToText('<@U404>', 'U0BOT', async () => {
        throw new Error('users.info failed');
      }),
    ).toBe('@U404');
  });
  it('a message that is only the mention becomes empty', async () => {
    expect(await markupToText('  <@U0BOT>  ', 'U0BOT', lookup)).toBe('');
  });
});

describe('mentionsUser', () => {
  it('finds plain and labelled mentions only of that user', () => {
    expect(mentionsUser('hi <@U0BOT>', 'U0BOT')).toBe(true);
    expect(mentionsUser('hi <@U0BOT|docs-agent>', 'U0BOT')).toBe(true);
    expect(mentionsUser('hi <@U0BOTX>', 'U0BOT')).toBe(false);
    expect(mentionsUser('hi', undefined)).toBe(false);
  });
});

describe("markupToText: name lookups (their budget is the lookup's: one per request)", () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `U${String(i).padStart(6, '0')}`);

  it('asks the lookup about each distinct person once, in order of first mention; unknown ones stay as @U… (or their label)', async () => {
    const asked: string[] = [];
    // A lookup with a budget of 25 (UserNames.lookup gives each request one): the rest are unknown.
    const counting = async (id: string) => (asked.push(id), asked.length <= 25 ? `name-of-${id}` : undefined);
    const people = ids(300);
    const text = [...people, ...people].map((id) => `<@${id}>`).join(' ') + ' <@U9ZZZZZ|zed>';
    const out = await markupToText(text, 'U0BOT', counting);
    expect(asked).toEqual([...people, 'U9ZZZZZ']);
    expect(
      out.startsWith(
        people
          .slice(0, 25)
          .map((id) => `@name-of-${id}`)
          .join(' '),
      ),
    ).toBe(true);
    expect(out).toContain(`@name-of-${people[24]!} @${people[25]!} @${people[26]!}`);
    expect(out.endsWith('@zed')).toBe(true);
  });

  it("the bot's own mention is not a lookup and does not count", async () => {
    const asked: string[] = [];
    await markupToText(`${'<@U0BOT> '.repeat(100)}<@U0ALICE>`, 'U0BOT', async (id) => {
      asked.push(id);
      return undefined;
    });
    expect(asked).toEqual(['U0ALICE']);
  });
});
