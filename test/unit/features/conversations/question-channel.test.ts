import { describe, expect, it } from 'vitest';
import { questionChannelMessage, questionWords } from '../../../../src/features/conversations/question-channel.js';
import { readsAsChangeRequest } from '../../../../src/features/ask/rule.js';

const BOT = 'U0DOCSBOT';

/**
 * Slack's `message` event shapes (docs.slack.dev, "message event" and the subtype pages
 * `bot_message`, `file_share`, `message_changed`, `message_deleted`, `thread_broadcast`,
 * `channel_join`, `me_message`): the fields the rule reads, as Slack sends them.
 */
const person = {
  type: 'message',
  channel: 'C0ASK',
  user: 'U0ALICE',
  text: 'How do I rotate an API key?',
  ts: '1700000000.000100',
  event_ts: '1700000000.000100',
  channel_type: 'channel',
  client_msg_id: '5f1c6b2e-0000-4000-8000-000000000001',
};

describe('the question-channel rule (docs/using.md "Question channels")', () => {
  it('takes a person’s new top-level message in a public or private channel, with its text as sent', () => {
    expect(questionChannelMessage(person, BOT)).toEqual({
      take: true,
      channel: 'C0ASK',
      user: 'U0ALICE',
      text: 'How do I rotate an API key?',
      ts: '1700000000.000100',
    });
    expect(questionChannelMessage({ ...person, channel_type: 'group' }, BOT).take).toBe(true);
    // A statement is taken too: in a question channel every message is a question.
    expect(questionChannelMessage({ ...person, text: 'webhooks keep retrying for me' }, BOT).take).toBe(true);
  });

  it('takes a file shared with a question as its comment (file_share), not a file alone', () => {
    const files = [{ id: 'F0LOG', name: 'error.log', mimetype: 'text/plain' }];
    const shared = { ...person, subtype: 'file_share', files, upload: false, display_as_bot: false };
    expect(questionChannelMessage({ ...shared, text: 'why does deploy fail with this log?' }, BOT).take).toBe(true);
    expect(questionChannelMessage({ ...shared, text: '' }, BOT)).toEqual({ take: false, why: 'no_words' });
  });

  it.each([
    ['a bot user’s message (bot_id)', { ...person, bot_id: 'B0OTHER', app_id: 'A0OTHER' }, 'bot'],
    ['a bot_message (no bot user)', { ...person, subtype: 'bot_message', bot_id: 'B0HOOK', user: undefined }, 'bot'],
    [
      'an edit (message_changed)',
      {
        type: 'message',
        subtype: 'message_changed',
        hidden: true,
        channel: 'C0ASK',
        channel_type: 'channel',
        ts: '1700000001.000200',
        message: { ...person, text: 'How do I revoke a key?', edited: { user: 'U0ALICE', ts: '1700000001.000200' } },
        previous_message: person,
      },
      'subtype',
    ],
    [
      'a deletion (message_deleted)',
      { type: 'message', subtype: 'message_deleted', hidden: true, channel: 'C0ASK', deleted_ts: person.ts },
      'subtype',
    ],
    [
      'a thread reply sent to the channel too (thread_broadcast)',
      { ...person, subtype: 'thread_broadcast', thread_ts: '1699999999.000001', root: { ts: '1699999999.000001' } },
      'subtype',
    ],
    [
      'a join (channel_join)',
      { ...person, subtype: 'channel_join', text: '<@U0ALICE> has joined the channel' },
      'subtype',
    ],
    ['a /me message (me_message)', { ...person, subtype: 'me_message', text: 'is reading the docs' }, 'subtype'],
    ['a thread reply', { ...person, thread_ts: '1699999999.000001', parent_user_id: 'U0BOB' }, 'thread_reply'],
    ['a DM (the DM way answers those)', { ...person, channel_type: 'im', channel: 'D0ALICE' }, 'not_a_channel'],
    ['a group DM', { ...person, channel_type: 'mpim', channel: 'G0MANY' }, 'not_a_channel'],
    [
      'a mention of the bot (the mention way answers it)',
      { ...person, text: `<@${BOT}> how do I log in?` },
      'mentions_bot',
    ],
    ['only a mention of others', { ...person, text: '<@U0BOB> <!subteam^S0DOCS|@docs-team>' }, 'no_words'],
    ['only a link', { ...person, text: '<https://docs.acme.test/sso|docs.acme.test/sso>' }, 'no_words'],
    ['only a bare link and an emoji', { ...person, text: 'https://example.com/x :eyes:' }, 'no_words'],
    ['only a channel name and punctuation', { ...person, text: '<#C0OTHER|general> !!' }, 'no_words'],
    ['no author', { ...person, user: undefined }, 'no_author'],
    ['not an object', 'message', 'not_a_channel'],
  ])('skips %s', (_what, event, why) => {
    expect(questionChannelMessage(event, BOT)).toEqual({ take: false, why });
  });

  it('keeps a top-level message whose thread_ts is its own ts (Slack sets it once replies exist)', () => {
    expect(questionChannelMessage({ ...person, thread_ts: person.ts }, BOT).take).toBe(true);
  });

  it('reads words past mentions, links and emoji, in any script', () => {
    expect(questionWords('<@U0BOB> see <https://x.test|x> :tada: wie geht SSO?')).toEqual([
      'see',
      'wie',
      'geht',
      'SSO',
    ]);
    expect(questionWords('¿Cómo roto una clave?')).toEqual(['Cómo', 'roto', 'una', 'clave']);
  });
});

describe('a change request in a question channel (the mention rule’s change steps)', () => {
  it.each([
    ['please add a note about SCIM'],
    ['can you add an example to the webhooks page?'],
    ['Fix the typo on the billing page'],
    ['hi, update the SSO page for Entra ID'],
  ])('reads as a change: %s', (text) => {
    expect(readsAsChangeRequest(text)).toBe(true);
  });

  it.each([
    ['How do I rotate an API key?'],
    ['webhooks keep retrying for me'],
    ['the old key keeps working after a rotation?'],
    ['SSO with Okta'],
  ])('a question (asked, not hinted): %s', (text) => {
    expect(readsAsChangeRequest(text)).toBe(false);
  });
});
