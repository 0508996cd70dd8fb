import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { intakeKind, replyToOf } from '../../../src/platform/intake-kind.js';

/**
 * Where the person behind an intake record can be told: read from any payload (a kind this
 * replica does not know, one that fails its schema), kept in the record's envelope.
 */
describe('replyToOf', () => {
  const url = 'https://hooks.slack.com/commands/T/1/x';
  it.each([
    [
      'a command',
      { requester: 'U1', channel: 'C1', responseUrl: url, instruction: 'secret' },
      { user: 'U1', channel: 'C1', responseUrl: url },
    ],
    [
      'a message event',
      { msg: { user: 'U2', channel: 'C2', thread_ts: '1.2', text: 'secret' } },
      { user: 'U2', channel: 'C2', threadTs: '1.2' },
    ],
    [
      'a report',
      { caller: { teamId: 'T', channel: 'C3', user: 'U3' }, responseUrl: url },
      { user: 'U3', channel: 'C3', responseUrl: url },
    ],
    [
      'a form in a thread',
      { user: 'U4', channel: 'C4', threadTs: '9.9', ephemeralThreadTs: '1.1' },
      { user: 'U4', channel: 'C4', threadTs: '1.1' },
    ],
    ['nothing usable', { user: 42, channel: null, responseUrl: '' }, {}],
    ['not an object', 'hello', {}],
    ['null', null, {}],
  ])('%s', (_name, payload, expected) => {
    expect(replyToOf(payload)).toEqual(expected);
  });
});

describe('intakeKind', () => {
  it('keeps the name, the version (default 1) and reads reply-to from the usual fields', () => {
    const kind = intakeKind('ask.question', z.object({ user: z.string(), channel: z.string() }));
    expect(kind).toMatchObject({ name: 'ask.question', version: 1 });
    expect(kind.replyTo({ user: 'U1', channel: 'C1' })).toEqual({ user: 'U1', channel: 'C1' });
  });

  it.each([
    ['Ask', 1],
    ['ask', 1],
    ['ask.question', 0],
    ['ask.question', 1.5],
  ])('refuses the name %j with version %j', (name, version) => {
    expect(() => intakeKind(name, z.object({}), { version })).toThrow();
  });
});
