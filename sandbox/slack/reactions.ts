/**
 * The `reactions.*` Web API family of the fake Slack: the bot adds and removes emoji reactions on
 * messages (Slack docs: reactions.add → `already_reacted`, reactions.remove → `no_reaction`).
 * Reactions are recorded by name, without colons, in the order they were added.
 */
import { fail, str, type Json, type MethodTable } from './method.js';
import type { SlackState } from './state.js';
import type { SlackMessage } from './types.js';

/** The reaction `name` and the message (`channel` + `timestamp`) it is about. */
function target(state: SlackState, args: Json): { name: string; msg: SlackMessage } {
  const ch = state.requireChannel(args.channel, false);
  const name = str(args.name) ?? fail('invalid_name');
  return { name, msg: state.requireMessage(ch, args.timestamp) };
}

/** The `reactions.*` methods over `state`. Errors: `channel_not_found`, `invalid_name`, `message_not_found`, `already_reacted`, `no_reaction`. */
export function reactionsMethods(state: SlackState): MethodTable {
  return {
    'reactions.add': (args) => {
      const { name, msg } = target(state, args);
      if (msg.reactions.includes(name)) fail('already_reacted');
      msg.reactions.push(name);
      return { ok: true };
    },
    'reactions.remove': (args) => {
      const { name, msg } = target(state, args);
      if (!msg.reactions.includes(name)) fail('no_reaction');
      msg.reactions = msg.reactions.filter((r) => r !== name);
      return { ok: true };
    },
  };
}
