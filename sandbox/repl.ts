/**
 * The sandbox's command line: what a person types at `sandbox>` becomes what a Slack user does —
 * slash commands, thread replies, mentions, a DM to the bot, a click on a button of the last
 * transcript, opening the App Home tab — sent to the bot through a
 * driver (signed HTTP, or Socket Mode envelopes), with the fake Slack's state printed as transcripts.
 *
 * {@link SandboxRepl.handle} runs one command line and needs only the fakes and a driver (no bot), so
 * it can be unit-tested against any endpoint that answers the driver's requests.
 */
import { createInterface } from 'node:readline';
import type { FakeSlack, SlackMessage } from './fake-slack.js';
import type { SandboxDriver } from './socket-as-http.js';
import { renderBlocks, renderTranscriptWithButtons, type ButtonRef } from './transcript.js';
import { paint } from './transcript/names.js';

/** What the REPL acts on, and as whom. */
export interface ReplOptions {
  slack: FakeSlack;
  /** Sends the person's actions to the bot (signed HTTP, or Socket Mode envelopes through socketDriverAsHttp). */
  driver: SandboxDriver;
  /** Prints one line (without trailing newline). */
  say: (line?: string) => void;
  /** Channel id the person types in. Default "C0DOCS". */
  channel?: string;
  /** User id of the person typing. Default "U0ALICE". */
  user?: string;
  /** ANSI colours in transcripts. Default false. */
  color?: boolean;
  /** How long `home` waits for the bot's `views.publish`, in ms. Default 5000. */
  homeTimeoutMs?: number;
}

/** What the caller should do after a command: read the next one, or stop. */
export type ReplResult = 'continue' | 'quit';

/** The REPL's help, one line per command, as printed by `help` and at the start. */
export const REPL_HELP: readonly string[] = [
  '  /docs-edit <instruction>      start an agent job (add [fail], [no-changes] or [archive] to see other endings)',
  '  reply <text>                  reply in the thread of the latest job (a follow-up; start with !aside to talk past the bot)',
  "  @bot <instruction>            mention the bot in the channel: a job in that message's thread",
  '  /docs-reply <job-id> <text>   continue a job from the channel',
  '  /docs-visitors [searches|feedback|questions] [FROM] [TO] [limit=N] | subscribe | unsubscribe | subscriptions | digest | help',
  '  dm <text>                     send the bot a direct message (in your DM with it)',
  '  click N                       press button [N: …] of the last transcript shown (link buttons too)',
  "  home                          open the bot's App Home tab and print it",
  '  show                          print the channel transcript (buttons numbered [N: …])',
  '  show dm                       print your DM with the bot',
  '  help                          print these lines',
  '  quit                          stop the sandbox',
];

/**
 * The latest live job status message the bot posted in `channel` (its text starts with
 * "Docs agent job"), i.e. the thread `reply` continues.
 */
export function latestJobStatus(slack: FakeSlack, channel: string): SlackMessage | undefined {
  return [...slack.messages]
    .reverse()
    .find((m) => m.channel === channel && m.bot_id && m.text.startsWith('Docs agent job') && !m.deleted);
}

type Command = readonly [RegExp, (match: RegExpExecArray) => Promise<void> | void];

/** One person at the sandbox's command line; remembers the buttons of the last transcript it printed. */
export class SandboxRepl {
  private readonly slack: FakeSlack;
  private readonly driver: SandboxDriver;
  private readonly say: (line?: string) => void;
  private readonly channel: string;
  private readonly user: string;
  private readonly color: boolean;
  private readonly homeTimeoutMs: number;
  private readonly commands: readonly Command[];
  private shownButtons: ButtonRef[] = [];

  constructor(opts: ReplOptions) {
    this.slack = opts.slack;
    this.driver = opts.driver;
    this.say = opts.say;
    this.channel = opts.channel ?? 'C0DOCS';
    this.user = opts.user ?? 'U0ALICE';
    this.color = opts.color ?? false;
    this.homeTimeoutMs = opts.homeTimeoutMs ?? 5000;
    this.commands = [
      [/^help$/, () => REPL_HELP.forEach((line) => this.say(line))],
      [/^show$/, () => this.show(this.channel)],
      [/^show dm$/, () => this.show(this.dmChannel())],
      [/^click\s+(\d+)$/, (m) => this.click(Number(m[1]))],
      [/^home$/, () => this.home()],
      [/^dm\s+(.+)$/s, (m) => this.dm(m[1] ?? '')],
      [/^reply\s+(.+)$/s, (m) => this.reply(m[1] ?? '')],
      [/^@bot\s+(.+)$/s, (m) => this.mention(m[1] ?? '')],
      [/^(\/docs-[a-z]+)\s*(.*)$/s, (m) => this.slashCommand(m[1] ?? '', m[2] ?? '')],
    ];
  }

  /** The numbered buttons of the last transcript printed (`show`, `show dm`); `click N` presses one. */
  get buttons(): readonly ButtonRef[] {
    return this.shownButtons;
  }

  /**
   * Run one command line (see {@link REPL_HELP}); blank lines do nothing.
   * @returns 'quit' for `quit` / `exit`, else 'continue'.
   * @throws what the driver throws (e.g. the bot's endpoint refuses connections).
   */
  async handle(input: string): Promise<ReplResult> {
    const line = input.trim();
    if (!line) return 'continue';
    if (line === 'quit' || line === 'exit') return 'quit';
    for (const [pattern, run] of this.commands) {
      const match = pattern.exec(line);
      if (match) {
        await run(match);
        return 'continue';
      }
    }
    this.say(
      '  unknown command; try /docs-edit <instruction>, reply <text>, @bot <text>, dm <text>, click N, home, show, help or quit',
    );
    return 'continue';
  }

  /** Print the transcript of `channel` with numbered buttons and remember them for `click N`. */
  show(channel: string): void {
    const { text, buttons } = renderTranscriptWithButtons(this.slack, { channel, color: this.color });
    this.shownButtons = buttons;
    this.say(text || `  (nothing in ${channel} yet)`);
  }

  /** The person's IM with the bot (Slack: the `channel` of DMs and of `app_home_opened`). */
  private dmChannel(): string {
    return this.slack.channels.find((c) => c.isIm && c.user === this.user)?.id ?? `D${this.user.replace(/^[UW]/, '')}`;
  }

  /** Press button `n` like Slack does: a `block_actions` payload for it (Slack sends one for link buttons too). */
  private async click(n: number): Promise<void> {
    const button = this.shownButtons.find((b) => b.n === n);
    if (!button) {
      const count = this.shownButtons.length;
      this.say(
        `  no button ${n}: ${count ? `the last transcript shows buttons 1–${count}` : 'the last transcript shows none (try show)'}`,
      );
      return;
    }
    if (!this.slack.findMessage(button.channel, button.messageTs)) this.say('  (that message has been deleted since)');
    this.say(
      `  you click [${button.n}: ${button.label}]${button.url ? ` — Slack opens ${button.url} and tells the bot` : ''}`,
    );
    const res = await this.driver.blockAction({
      user: this.user,
      channel: button.channel,
      messageTs: button.messageTs,
      actionId: button.actionId,
      ...(button.value !== undefined ? { value: button.value } : {}),
      ...(button.blockId ? { blockId: button.blockId } : {}),
    });
    if (res.status !== 200) this.say(`  the bot answered HTTP ${res.status}`);
  }

  /** Send `app_home_opened` and print the Home view the bot publishes (or the last one it published). */
  private async home(): Promise<void> {
    const start = this.slack.views.length;
    const isMine = (v: FakeSlack['views'][number]): boolean => v.kind === 'home' && v.userId === this.user;
    await this.driver.appHomeOpened(this.user);
    // None published in time: the last Home view published is shown instead (below).
    const fresh = await this.slack
      .waitFor(() => this.slack.views.slice(start).reverse().find(isMine), this.homeTimeoutMs)
      .catch(() => undefined);
    const view = fresh ?? [...this.slack.views].reverse().find(isMine);
    if (!view) {
      this.say('  the bot published no App Home for you');
      return;
    }
    if (!fresh) this.say(`  (no new App Home within ${this.homeTimeoutMs} ms; this is the last one the bot published)`);
    this.say(paint(this.color, ['bold'], '── App Home ──'));
    this.say(renderBlocks(this.slack, Array.isArray(view.view.blocks) ? view.view.blocks : []));
  }

  private async dm(text: string): Promise<void> {
    await this.driver.message({ channel: this.dmChannel(), user: this.user, text, channelType: 'im' });
  }

  private async reply(text: string): Promise<void> {
    const status = latestJobStatus(this.slack, this.channel);
    if (!status) this.say('  no job yet: start one with /docs-edit');
    else
      await this.driver.message({
        channel: this.channel,
        user: this.user,
        thread_ts: status.thread_ts ?? status.ts,
        text,
      });
  }

  private async mention(text: string): Promise<void> {
    await this.driver.appMention({
      channel: this.channel,
      user: this.user,
      text: `<@${this.slack.botUserId}> ${text}`,
    });
  }

  private async slashCommand(command: string, text: string): Promise<void> {
    const res = await this.driver.slashCommand({ command, text, user: this.user, channel: this.channel });
    if (res.json && typeof res.json === 'object' && 'text' in res.json)
      this.say(`  (only visible to you) ${String((res.json as { text: unknown }).text)}`);
  }
}

/**
 * Read command lines from `input` (prompting `sandbox> ` on `output`) and run each with
 * `repl.handle`, one after the other, until `quit` / `exit` or the end of input; lines typed while a
 * command runs are kept for later. A command that throws prints its error and the loop goes on.
 */
export async function readCommands(
  repl: SandboxRepl,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  say: (line: string) => void,
): Promise<void> {
  const rl = createInterface({ input, output, prompt: 'sandbox> ' });
  // Once the input has ended, Node 24 throws ERR_USE_AFTER_CLOSE on prompt(); lines read before still arrive.
  let closed = false;
  rl.once('close', () => (closed = true));
  try {
    rl.prompt();
    for await (const line of rl) {
      try {
        if ((await repl.handle(line)) === 'quit') return;
      } catch (err) {
        say(`  failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!closed) rl.prompt();
    }
  } finally {
    rl.close();
  }
}
