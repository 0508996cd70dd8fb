import { describe, expect, it } from 'vitest';
import {
  digestRanges,
  formatRange,
  parseDateArg,
  rangeDays,
  shortcutRange,
  SHORTCUTS,
} from '../../../../src/features/reports/date-range.js';
import {
  helpText,
  parseVisitorsCommand,
  resolveRange,
  type VisitorsCommand,
} from '../../../../src/features/reports/query.js';

const DIGEST_NAMES = ['subscribe', 'unsubscribe', 'subscriptions', 'digest'];
const parse = (text: string): VisitorsCommand => parseVisitorsCommand(text, { subcommands: DIGEST_NAMES });

/** Sunday 2026-11-22 20:05 UTC: Monday 05:05 in Tokyo, Sunday 15:05 in New York, 21:05 in Berlin. */
const SUNDAY_EVENING_UTC = Date.parse('2026-11-22T20:05:00Z');

function reportRange(text: string, nowMs: number, zone: string) {
  const cmd = parse(text);
  if (cmd.kind !== 'report') throw new Error(`not a report: ${JSON.stringify(cmd)}`);
  const resolved = resolveRange(cmd.range, nowMs, zone);
  if (!resolved.ok) throw new Error(resolved.message);
  return { ...resolved.range, limit: cmd.limit };
}

function invalidMessage(text: string): string {
  const cmd = parse(text);
  expect(cmd.kind, `"${text}" should be refused`).toBe('invalid');
  return (cmd as { message: string }).message;
}

describe('/docs-visitors arguments: ranges', () => {
  it('no dates means the last 7 full days, limit 50, always both dates', () => {
    expect(reportRange('', SUNDAY_EVENING_UTC, 'UTC')).toEqual({
      dateFrom: '2026-11-15',
      dateTo: '2026-11-22',
      limit: 50,
    });
    expect(reportRange('   ', SUNDAY_EVENING_UTC, 'UTC')).toEqual({
      dateFrom: '2026-11-15',
      dateTo: '2026-11-22',
      limit: 50,
    });
  });

  it.each([
    ['7d', '2026-11-15', '2026-11-22'],
    ['30d', '2026-10-23', '2026-11-22'],
    ['90d', '2026-08-24', '2026-11-22'],
    ['this-week', '2026-11-16', '2026-11-23'],
    ['last-week', '2026-11-09', '2026-11-16'],
    ['this-month', '2026-11-01', '2026-11-23'],
    ['last-month', '2026-10-01', '2026-11-01'],
  ])('%s on Sunday Nov 22 in UTC → [%s, %s)', (shortcut, from, to) => {
    expect(reportRange(shortcut, SUNDAY_EVENING_UTC, 'UTC')).toMatchObject({ dateFrom: from, dateTo: to });
    expect(reportRange(shortcut.toUpperCase(), SUNDAY_EVENING_UTC, 'UTC')).toMatchObject({
      dateFrom: from,
      dateTo: to,
    });
  });

  it('every shortcut is covered above', () => {
    expect([...SHORTCUTS].sort()).toEqual(['30d', '7d', '90d', 'last-month', 'last-week', 'this-month', 'this-week']);
  });

  it("uses the person's time zone: it is already Monday in Tokyo, still Sunday in New York", () => {
    expect(reportRange('this-week', SUNDAY_EVENING_UTC, 'Asia/Tokyo')).toMatchObject({
      dateFrom: '2026-11-23',
      dateTo: '2026-11-24',
    });
    expect(reportRange('last-week', SUNDAY_EVENING_UTC, 'Asia/Tokyo')).toMatchObject({
      dateFrom: '2026-11-16',
      dateTo: '2026-11-23',
    });
    expect(reportRange('', SUNDAY_EVENING_UTC, 'Asia/Tokyo')).toMatchObject({
      dateFrom: '2026-11-16',
      dateTo: '2026-11-23',
    });
    expect(reportRange('this-week', SUNDAY_EVENING_UTC, 'America/New_York')).toMatchObject({
      dateFrom: '2026-11-16',
      dateTo: '2026-11-23',
    });
  });

  it('a week that crosses the end of DST in Berlin (Oct 25, 2026) is still Monday to Sunday, 7 days', () => {
    // 2026-10-25T23:30Z is Monday Oct 26, 00:30 CET in Berlin, but still Sunday in UTC.
    const now = Date.parse('2026-10-25T23:30:00Z');
    const berlin = reportRange('last-week', now, 'Europe/Berlin');
    expect(berlin).toMatchObject({ dateFrom: '2026-10-19', dateTo: '2026-10-26' });
    expect(rangeDays(berlin)).toBe(7);
    expect(formatRange(berlin)).toBe('Oct 19 – Oct 25, 2026');
    expect(reportRange('last-week', now, 'UTC')).toMatchObject({ dateFrom: '2026-10-12', dateTo: '2026-10-19' });
    expect(reportRange('this-week', now, 'Europe/Berlin')).toMatchObject({
      dateFrom: '2026-10-26',
      dateTo: '2026-10-27',
    });
  });

  it('a week that crosses the end of DST in New York (Nov 1, 2026) and the start in Berlin (Mar 29, 2026)', () => {
    const sundayNightNy = Date.parse('2026-11-02T04:30:00Z'); // Sun Nov 1, 23:30 EST
    expect(reportRange('this-week', sundayNightNy, 'America/New_York')).toMatchObject({
      dateFrom: '2026-10-26',
      dateTo: '2026-11-02',
    });
    expect(reportRange('7d', sundayNightNy, 'America/New_York')).toMatchObject({
      dateFrom: '2026-10-25',
      dateTo: '2026-11-01',
    });
    expect(reportRange('this-week', sundayNightNy, 'UTC')).toMatchObject({
      dateFrom: '2026-11-02',
      dateTo: '2026-11-03',
    });
    const mondayBerlinSpring = Date.parse('2026-03-29T22:30:00Z'); // Mon Mar 30, 00:30 CEST
    const spring = reportRange('last-week', mondayBerlinSpring, 'Europe/Berlin');
    expect(spring).toMatchObject({ dateFrom: '2026-03-23', dateTo: '2026-03-30' });
    expect(rangeDays(spring)).toBe(7);
  });

  it('months follow the local calendar: just after midnight on Nov 1 in Berlin, last month is October', () => {
    const now = Date.parse('2026-10-31T23:30:00Z');
    expect(reportRange('last-month', now, 'Europe/Berlin')).toMatchObject({
      dateFrom: '2026-10-01',
      dateTo: '2026-11-01',
    });
    expect(reportRange('last-month', now, 'UTC')).toMatchObject({ dateFrom: '2026-09-01', dateTo: '2026-10-01' });
    expect(reportRange('this-month', now, 'Europe/Berlin')).toMatchObject({
      dateFrom: '2026-11-01',
      dateTo: '2026-11-02',
    });
    // A leap year's February.
    expect(shortcutRange('last-month', Date.parse('2028-03-10T12:00:00Z'), 'UTC')).toEqual({
      dateFrom: '2028-02-01',
      dateTo: '2028-03-01',
    });
  });

  it('explicit dates are sent as typed; TO is exclusive; FROM alone runs through today', () => {
    expect(reportRange('2026-11-15 2026-11-22 limit=100', SUNDAY_EVENING_UTC, 'UTC')).toEqual({
      dateFrom: '2026-11-15',
      dateTo: '2026-11-22',
      limit: 100,
    });
    expect(reportRange('limit=7 2026-11-15 2026-11-22', SUNDAY_EVENING_UTC, 'UTC')).toMatchObject({ limit: 7 });
    expect(reportRange('2026-11-15t09:00z 2026-11-16T09:00:00+01:00', SUNDAY_EVENING_UTC, 'UTC')).toMatchObject({
      dateFrom: '2026-11-15T09:00Z',
      dateTo: '2026-11-16T09:00:00+01:00',
    });
    expect(reportRange('2026-11-01', SUNDAY_EVENING_UTC, 'UTC')).toMatchObject({
      dateFrom: '2026-11-01',
      dateTo: '2026-11-23',
    });
    expect(reportRange('2026-11-01', SUNDAY_EVENING_UTC, 'Asia/Tokyo')).toMatchObject({
      dateFrom: '2026-11-01',
      dateTo: '2026-11-24',
    });
  });

  it('FROM alone after today is refused after the time zone is known, with the syntax', () => {
    const cmd = parse('2026-12-01');
    expect(cmd.kind).toBe('report');
    const resolved = resolveRange(
      (cmd as Extract<VisitorsCommand, { kind: 'report' }>).range,
      SUNDAY_EVENING_UTC,
      'UTC',
    );
    expect(resolved.ok).toBe(false);
    expect((resolved as { message: string }).message).toContain('`2026-12-01` is after today');
    expect((resolved as { message: string }).message).toContain(
      '/docs-visitors [searches|feedback|questions] [FROM] [TO] [limit=N]',
    );
  });

  it('digest weeks: the last 7 full days and the 7 before, in the schedule zone', () => {
    expect(digestRanges(Date.parse('2026-11-23T09:00:00Z'), 'UTC')).toEqual({
      current: { dateFrom: '2026-11-16', dateTo: '2026-11-23' },
      previous: { dateFrom: '2026-11-09', dateTo: '2026-11-16' },
    });
    expect(digestRanges(Date.parse('2026-10-26T08:00:00Z'), 'Europe/Berlin').previous).toEqual({
      dateFrom: '2026-10-12',
      dateTo: '2026-10-19',
    });
  });
});

describe('/docs-visitors arguments: the range in words', () => {
  it.each([
    [{ dateFrom: '2026-11-15', dateTo: '2026-11-22' }, 'Nov 15 – Nov 21, 2026'],
    [{ dateFrom: '2026-12-28', dateTo: '2027-01-04' }, 'Dec 28, 2026 – Jan 3, 2027'],
    [{ dateFrom: '2026-11-21', dateTo: '2026-11-22' }, 'Nov 21, 2026'],
    [
      { dateFrom: '2026-11-15T09:00Z', dateTo: '2026-11-16T09:00:00+01:00' },
      'Nov 15, 2026 09:00 UTC – Nov 16, 2026 08:00 UTC',
    ],
  ])('%j → %s', (range, label) => {
    expect(formatRange(range)).toBe(label);
  });
});

describe('/docs-visitors arguments: mistakes are quoted, with the syntax and an example', () => {
  it.each([
    ['2026-02-30', '`2026-02-30` is not a real calendar date'],
    ['2026-13-01', '`2026-13-01` is not a real calendar date'],
    ['2026-11-15T25:00Z', '`2026-11-15T25:00Z` is not a real calendar date or time'],
    ['11/15/2026', '`11/15/2026` is not a date I can read'],
    ['2026-11', '`2026-11` is not a date'],
    ['0026-11-01', '`0026-11-01` is outside the years'],
    ['2026-11-22 2026-11-15', 'FROM `2026-11-22` is not before TO `2026-11-15`'],
    ['2026-11-22 2026-11-22', 'FROM `2026-11-22` is not before TO `2026-11-22`'],
    ['2026-11-01 2026-11-02 2026-11-03', 'at most two dates'],
    ['limit=0', '`limit=0`: limit must be from 1 to 250'],
    ['limit=251', '`limit=251`: limit must be from 1 to 250'],
    ['limit=abc', '`limit=abc`: limit must be a whole number'],
    ['limit=-5', '`limit=-5`: limit must be a whole number'],
    ['limit=1.5', '`limit=1.5`: limit must be a whole number'],
    ['limit=', '`limit=`: limit must be a whole number'],
    ['limit=10 limit=20', 'Give `limit` once'],
    ['yesterday', "I don't understand `yesterday`"],
    ['7d 30d', 'one range shortcut only'],
    ['last-week 2026-11-01', '`last-week` already sets both FROM and TO'],
    ['help me', '`help` takes no arguments'],
    ['`rm -rf`', "I don't understand `'rm`"],
  ])('%s', (text, problem) => {
    const message = invalidMessage(text);
    expect(message).toContain(problem);
    if (!text.startsWith('subscribe')) {
      expect(message).toContain('*Usage:* `/docs-visitors [searches|feedback|questions] [FROM] [TO] [limit=N]`');
      expect(message).toContain('*Example:* `/docs-visitors 2026-11-01 2026-11-08 limit=100`');
    }
  });

  it('escapes what it quotes, so a mistake cannot inject mrkdwn or mentions', () => {
    expect(invalidMessage('<!channel>')).toContain('`&lt;!channel&gt;`');
  });

  it('limit at the bounds is fine', () => {
    expect(reportRange('limit=1', SUNDAY_EVENING_UTC, 'UTC').limit).toBe(1);
    expect(reportRange('LIMIT=250', SUNDAY_EVENING_UTC, 'UTC').limit).toBe(250);
  });

  it('parseDateArg accepts the API forms only', () => {
    expect(parseDateArg('2026-11-15')).toMatchObject({
      ok: true,
      dateOnly: true,
      ms: Date.parse('2026-11-15T00:00:00Z'),
    });
    expect(parseDateArg('2026-11-15T10:30')).toMatchObject({
      ok: true,
      dateOnly: false,
      ms: Date.parse('2026-11-15T10:30:00Z'),
    });
    expect(parseDateArg('2026-11-15T10:30:15.250+05:30')).toMatchObject({
      ok: true,
      ms: Date.parse('2026-11-15T05:00:15.250Z'),
    });
    expect(parseDateArg('20261115').ok).toBe(false);
    expect(parseDateArg('2026-11-15 10:30').ok).toBe(false);
  });
});

describe('/docs-visitors searches, feedback and questions', () => {
  it('take the same date arguments as the visitor report, and 1–20 rows per page (10 by default)', () => {
    expect(parse('searches')).toEqual({ kind: 'signals', report: 'searches', range: { type: 'default' }, limit: 10 });
    expect(parse('Feedback last-week limit=20')).toEqual({
      kind: 'signals',
      report: 'feedback',
      range: { type: 'shortcut', shortcut: 'last-week' },
      limit: 20,
    });
    expect(parse('questions 2026-11-01 2026-11-08')).toMatchObject({
      kind: 'signals',
      report: 'questions',
      range: { type: 'dates', from: { value: '2026-11-01' }, to: { value: '2026-11-08' } },
    });
    expect(parse('visitors limit=5')).toEqual({ kind: 'report', range: { type: 'default' }, limit: 5 });
  });

  it.each([
    ['searches limit=21', '`limit=21`: limit must be from 1 to 20'],
    ['feedback limit=0', '`limit=0`: limit must be from 1 to 20'],
    ['questions 2026-11-22 2026-11-15', 'FROM `2026-11-22` is not before TO `2026-11-15`'],
    ['searches yesterday', "I don't understand `yesterday`"],
    ['feedback 7d 30d', 'one range shortcut only'],
  ])('the same refusals for bad input: %s', (text, problem) => {
    const message = invalidMessage(text);
    expect(message).toContain(problem);
    expect(message).toContain('*Usage:* `/docs-visitors [searches|feedback|questions] [FROM] [TO] [limit=N]`');
  });

  it('help lists the four reports and the menu', () => {
    const text = helpText();
    for (const r of ['`/docs-visitors searches`', '`/docs-visitors feedback`', '`/docs-visitors questions`'])
      expect(text).toContain(r);
    expect(text).toContain('each has a menu that opens the others');
  });
});

describe('/docs-visitors subcommands', () => {
  it('help shows the syntax and shortcuts, then the lines and examples of the subcommands plugged in', () => {
    expect(parse('help')).toEqual({ kind: 'help' });
    expect(parse('HELP')).toEqual({ kind: 'help' });
    const text = helpText(['• `/docs-visitors subscribe …`: a digest'], ['`/docs-visitors subscribe mon`']);
    expect(text).toContain('/docs-visitors FROM [TO] [limit=N]');
    for (const s of SHORTCUTS) expect(text).toContain(s);
    expect(text).toContain('• `/docs-visitors subscribe …`: a digest');
    expect(text).toMatch(/\*Examples:\*.*`\/docs-visitors subscribe mon`$/m);
  });

  it('a subcommand another feature provides comes back with its words, for that feature to parse', () => {
    expect(parse('unsubscribe')).toEqual({ kind: 'subcommand', name: 'unsubscribe', args: [] });
    expect(parse('Subscriptions')).toEqual({ kind: 'subcommand', name: 'subscriptions', args: [] });
    expect(parse('subscribe fri 16:30 Europe/Berlin')).toEqual({
      kind: 'subcommand',
      name: 'subscribe',
      args: ['fri', '16:30', 'Europe/Berlin'],
    });
    expect(parseVisitorsCommand('subscribe', { subcommands: [] })).toMatchObject({ kind: 'invalid' });
  });
});
