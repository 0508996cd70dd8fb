/** What the agent-view listeners record before they ack (the intake kinds and their payloads); the handlers take them from the intake. */

/** Kinds of intake the agent-view feature handles. */
export const INTAKE = { prompts: 'agent-view.prompts' } as const;

/**
 * Someone opened the app's Messages tab, or what they look at beside it changed: set its
 * suggestions. `channel` is their DM with the app; `viewing` the channel they look at, if any.
 */
export interface PromptsIntake {
  teamId: string;
  user: string;
  channel: string;
  viewing?: string;
}
