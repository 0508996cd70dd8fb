import { describe, expect, it } from 'vitest';
import { markupToText, mentionsUser } from '../../src/platform/slack/markup.js';

const names: Record<string, string> = { U0ALICE: 'alice', U0BOB: 'bob' };
const lookup = async (id: string) => names[id];

describe('markupToText', () => {
  it('removes the bot mention and names people', async () => {
    expect(await markupToText('<@U0BOT> also add a Go example, ask <@U0BOB>', 'U0BOT', lookup)).toBe('also add a Go example, ask @bob');
  });
  it('turns channel links, labelled links and bare links into text', async () => {
    expect(await markupToText('see <#C1|docs> and <https://x.dev/a?b=1|the guide> or <https://y.dev>', 'U0BOT', lookup)).toBe(
      'see #docs and the guide (https://x.dev/a?b=1) or https://y.dev',
    );
  });
  it('unescapes &amp; &lt; &gt; after the markup is gone', async () => {
    expect(await markupToText('use a &lt;Tabs&gt; component &amp; keep <@U0ALICE>', undefined, lookup)).toBe('use a <Tabs> component & keep @alice');
  });
  it('handles special mentions, mailto, labels for unknown users and user groups', async () => {
    expect(await markupToText('<!here> mail <mailto:a@b.dev|a@b.dev>, <@U9|zed>, <!subteam^S1|@writers>', 'U0BOT', lookup)).toBe(
      '@here mail a@b.dev, @zed, @writers',
    );
  });
  it('falls back to the id when the lookup fails', async () => {
    expect(await markupToText('<@U404>', 'U0BOT', async () => { throw new Error('users.info failed'); })).toBe('@U404');
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
