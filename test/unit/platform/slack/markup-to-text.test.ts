import { describe, expect, it } from 'vitest';
import { markupToText, MAX_NAME_LOOKUPS, mentionsUser } from '../../../../src/platform/slack/markup.js';

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

describe("markupToText: name lookups (at most 25 per text, joined with the lookup's budget per request)", () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `U${String(i).padStart(6, '0')}`);

  it(`a text of 300 distinct mentions asks the lookup about the first ${MAX_NAME_LOOKUPS} people only, each once; the rest stay as @U… (or their label)`, async () => {
    const asked: string[] = [];
    const counting = async (id: string) => (asked.push(id), `name-of-${id}`);
    const people = ids(300);
    const text = [...people, ...people].map((id) => `<@${id}>`).join(' ') + ' <@U9ZZZZZ|zed>';
    const out = await markupToText(text, 'U0BOT', counting);
    expect(asked).toEqual(people.slice(0, 25));
    expect(
      out.startsWith(
        people
          .slice(0, 25)
          .map((id) => `@name-of-${id}`)
          .join(' '),
      ),
    ).toBe(true);
    expect(out).toContain(`@name-of-${people[24]!} @${people[25]!} @${people[26]!}`);
    expect(out).toContain(`@${people[299]!}`);
    expect(out.endsWith('@zed')).toBe(true);
  });

  it('a lookup that answers unknown (its request budget spent) leaves the id, within the first 25 too', async () => {
    const asked: string[] = [];
    const spent = async (id: string) => (asked.push(id), asked.length <= 10 ? `name-of-${id}` : undefined);
    const people = ids(30);
    const out = await markupToText(people.map((id) => `<@${id}>`).join(' '), undefined, spent);
    expect(asked).toHaveLength(25);
    expect(out).toContain(`@name-of-${people[9]!} @${people[10]!}`);
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
