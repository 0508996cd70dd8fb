/**
 * A button click as a listener records it for its worker: bounded strings only, whatever Slack
 * sent; the worker checks the value (its signature, what it names) and who clicked.
 */
import type { BlockAction } from '@slack/bolt';
import { z } from 'zod';

/** A recorded click: the button's value as Slack sent it (checked by the handler), who clicked, and where. */
export interface ClickIntake {
  value: string;
  user: string;
  teamId?: string;
  /** Where the button was clicked (Slack's `channel`, else its `container`). */
  channel?: string;
  responseUrl?: string;
}

/** The schema of a recorded {@link ClickIntake}. */
export const clickSchema: z.ZodType<ClickIntake> = z.looseObject({
  value: z.string(),
  user: z.string(),
  teamId: z.string().optional(),
  channel: z.string().optional(),
  responseUrl: z.string().optional(),
});

/**
 * A click's payload, bounded whatever Slack sent: `value` cut to `valueMax` characters ('' when it
 * is no string), the clicker's id cut to 40 ('' when there is none: the listener acks and records
 * nothing), the workspace, the channel and the `response_url` when Slack gives them.
 */
export function clickOf(body: BlockAction, value: unknown, valueMax: number): ClickIntake {
  const channel = body.channel?.id ?? body.container?.channel_id;
  return {
    value: typeof value === 'string' ? value.slice(0, valueMax) : '',
    user: typeof body.user?.id === 'string' ? body.user.id.slice(0, 40) : '',
    ...(body.team?.id ? { teamId: body.team.id } : {}),
    ...(typeof channel === 'string' ? { channel } : {}),
    ...(body.response_url ? { responseUrl: body.response_url } : {}),
  };
}
