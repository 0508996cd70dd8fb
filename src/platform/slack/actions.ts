/**
 * Prefix of the `action_id` of every link button (a button with a `url`). Slack still sends
 * `block_actions` when one is clicked, and shows a warning on the button unless it is acked: the
 * platform acks every action whose id starts with it.
 */
export const LINK_ACTION_PREFIX = 'link.';
