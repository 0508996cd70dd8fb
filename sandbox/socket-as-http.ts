/**
 * The sandbox's script and REPL speak {@link SlackDriver}'s shape (an HTTP status and a JSON body);
 * `npm run sandbox -- --socket-mode` drives the bot over the fake's Socket Mode WebSocket instead.
 * This adapter gives a {@link SocketModeDriver} that shape: an ack is a 200 whose body is the ack's
 * payload (e.g. a slash command's ephemeral answer); an envelope the bot leaves unacked rejects, as
 * the driver does after its timeout (3 s, Slack's ack window).
 */
import type { AckRecord } from './fake-slack.js';
import type { DriverResponse, SlackDriver } from './slack-driver.js';
import type { SocketModeDriver } from './socket-driver.js';

/** What the sandbox sends to the bot: the person's actions of {@link SlackDriver} it uses. */
export type SandboxDriver = Pick<
  SlackDriver,
  | 'slashCommand'
  | 'message'
  | 'appMention'
  | 'blockAction'
  | 'appHomeOpened'
  | 'appContextChanged'
  | 'messageShortcut'
  | 'viewSubmission'
>;

function asResponse(ack: AckRecord): DriverResponse {
  const body = ack.payload === undefined ? '' : JSON.stringify(ack.payload);
  return { status: 200, body, ...(ack.payload === undefined ? {} : { json: ack.payload }) };
}

/** `driver` in the shape of a {@link SandboxDriver}. */
export function socketDriverAsHttp(driver: SocketModeDriver): SandboxDriver {
  return {
    slashCommand: async (p) => asResponse(await driver.slashCommand(p)),
    message: async (p, o) => {
      const { ts, eventId, ...ack } = await driver.message(p, o);
      return { ...asResponse(ack), ts, eventId };
    },
    appMention: async (p, o) => {
      const { ts, eventId, messageEvent, ...ack } = await driver.appMention(p, o);
      return {
        ...asResponse(ack),
        ts,
        eventId,
        ...(messageEvent ? { messageEvent: { ...asResponse(messageEvent), eventId: messageEvent.eventId } } : {}),
      };
    },
    blockAction: async (p) => asResponse(await driver.blockAction(p)),
    appHomeOpened: async (user, o) => asResponse(await driver.appHomeOpened(user, o)),
    appContextChanged: async (user, viewing, o) => asResponse(await driver.appContextChanged(user, viewing, o)),
    messageShortcut: async (p) => asResponse(await driver.messageShortcut(p)),
    viewSubmission: async (p) => asResponse(await driver.viewSubmission(p)),
  };
}
