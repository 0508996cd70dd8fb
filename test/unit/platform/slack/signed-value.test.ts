import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MembersUnknownError } from '../../../../src/platform/slack/conversations.js';
import {
  BOT_CANNOT_SEE_TEXT,
  checkMembership,
  MEMBERS_UNKNOWN_TEXT,
  MEMBERSHIP_BUSY_TEXT,
  MEMBERSHIP_CHECK_FAILED_TEXT,
  NOT_A_MEMBER_TEXT,
} from '../../../../src/platform/slack/member-check.js';
import { SIGNATURE_OVERHEAD, signerFromConfig, ValueSigner } from '../../../../src/platform/slack/signed-value.js';
import { arrayLogger } from '../../../helpers/logs.js';

/* Signed button values and modal metadata (src/platform/slack/signed-value.ts), and the membership re-check. */

const signer = ValueSigner.fromSecret('test-signing-secret');

describe('ValueSigner', () => {
  it('opens what it signed, for the same purpose only, and adds exactly SIGNATURE_OVERHEAD characters', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.constantFrom('a.b', 'agent-jobs.feedback', 'settings.edit'),
        (payload, purpose) => {
          const value = signer.sign(purpose, payload);
          expect(value.length).toBe(payload.length + SIGNATURE_OVERHEAD);
          expect(signer.open(purpose, value)).toEqual({ ok: true, payload });
          expect(signer.open(`${purpose}x`, value)).toEqual({ ok: false, reason: 'tampered' });
        },
      ),
    );
  });

  it('refuses any change to a signed value: one character replaced anywhere', () => {
    const value = signer.sign('document-thread.modal', '{"c":"C0DOCS","t":"1700000000.000100"}');
    fc.assert(
      fc.property(fc.nat({ max: value.length - 1 }), fc.string({ minLength: 1, maxLength: 1 }), (at, ch) => {
        fc.pre(value[at] !== ch);
        const changed = value.slice(0, at) + ch + value.slice(at + 1);
        expect(signer.open('document-thread.modal', changed).ok).toBe(false);
      }),
      { numRuns: 2_000 },
    );
    // Every other last character of the MAC (its spare bits included) is refused too.
    const macEnd = SIGNATURE_OVERHEAD - 2;
    for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') {
      if (ch === value[macEnd]) continue;
      expect(signer.open('document-thread.modal', value.slice(0, macEnd) + ch + value.slice(macEnd + 1)).ok).toBe(
        false,
      );
    }
  });

  it('unsigned values (from before signing, or forged) and anything that is not a string are refused as unsigned, never thrown on', () => {
    for (const v of ['{"c":"C0LEADS"}', 'positive:job_1', 'C0DOCS', '', undefined, null, 42, {}])
      expect(signer.open('p', v)).toEqual({ ok: false, reason: 'unsigned' });
    for (const v of ['s1.', 's1.short.x', `s1.${'A'.repeat(22)}x{}`, `s1.${'!'.repeat(22)}.{}`])
      expect(signer.open('p', v)).toEqual({ ok: false, reason: 'tampered' });
  });

  it('another secret is another key: its values are refused; every replica with the same secret agrees', () => {
    expect(() => ValueSigner.fromSecret('')).toThrow('a signing key needs a non-empty secret');
    const other = ValueSigner.fromSecret('another-secret');
    expect(other.open('p', signer.sign('p', 'x'))).toEqual({ ok: false, reason: 'tampered' });
    expect(ValueSigner.fromSecret('test-signing-secret').open('p', signer.sign('p', 'x'))).toEqual({
      ok: true,
      payload: 'x',
    });
  });

  it('keys from SLACK_SIGNING_SECRET, else (Socket Mode) from SLACK_APP_TOKEN', () => {
    const http = signerFromConfig({ SLACK_SIGNING_SECRET: 'test-signing-secret' });
    expect(signer.open('p', http.sign('p', 'x')).ok).toBe(true);
    const socket = signerFromConfig({ SLACK_APP_TOKEN: 'xapp-1-A1-token' });
    expect(ValueSigner.fromSecret('xapp-1-A1-token').open('p', socket.sign('p', 'x')).ok).toBe(true);
    expect(signer.open('p', socket.sign('p', 'x')).ok).toBe(false);
    expect(() => signerFromConfig({})).toThrow(/SLACK_SIGNING_SECRET or SLACK_APP_TOKEN/);
  });
});

/** An error as @slack/web-api throws it for a Slack `error` answer. */
const slackError = (code: string) =>
  Object.assign(new Error(`An API error occurred: ${code}`), {
    code: 'slack_webapi_platform_error',
    data: { error: code },
  });

describe('checkMembership', () => {
  const req = { channel: 'C0LEADS', user: 'U0BOB', action: 'start_job' as const };

  it('a member passes; a non-member, busy reads, a list too long to read and a Slack error are refused with their own sentence and one audit line', async () => {
    const cases: Array<[() => Promise<boolean>, unknown]> = [
      [async () => true, { ok: true }],
      [async () => false, { ok: false, reason: 'not_a_member', text: NOT_A_MEMBER_TEXT }],
      [
        () => Promise.reject(new MembersUnknownError('C0LEADS', 'busy')),
        { ok: false, reason: 'busy', text: MEMBERSHIP_BUSY_TEXT },
      ],
      [
        () => Promise.reject(new MembersUnknownError('C0LEADS', 'too_large')),
        { ok: false, reason: 'members_unknown', text: MEMBERS_UNKNOWN_TEXT },
      ],
      [
        () => Promise.reject(slackError('channel_not_found')),
        { ok: false, reason: 'bot_cannot_see', text: BOT_CANNOT_SEE_TEXT },
      ],
      [
        () => Promise.reject(slackError('internal_error')),
        { ok: false, reason: 'check_failed', text: MEMBERSHIP_CHECK_FAILED_TEXT },
      ],
    ];
    for (const [isMember, expected] of cases) {
      const { logger, lines } = arrayLogger();
      expect(await checkMembership({ isMember }, logger, req)).toEqual(expected);
      const audits = lines.filter((l) => l.audit);
      if ((expected as { ok: boolean }).ok) expect(audits).toEqual([]);
      const audited: Record<string, string> = { bot_cannot_see: 'check_failed', busy: 'membership_busy' };
      const given = (expected as { reason?: string }).reason;
      const reason = (given && audited[given]) ?? given;
      if (!(expected as { ok: boolean }).ok)
        expect(audits).toEqual([
          expect.objectContaining({
            actor: 'U0BOB',
            channel: 'C0LEADS',
            action: 'start_job',
            outcome: 'refused',
            reason,
          }),
        ]);
    }
  });

  it('a check slower than asked is refused (fail closed) in time', async () => {
    const { logger } = arrayLogger();
    const started = Date.now();
    expect(
      await checkMembership({ isMember: () => new Promise<boolean>(() => undefined) }, logger, {
        ...req,
        withinMs: 50,
      }),
    ).toMatchObject({ ok: false, reason: 'check_failed' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
