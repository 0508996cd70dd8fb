/**
 * What the document-thread listeners record before they ack: the intake kinds, each with its
 * payload's schema and version; the handlers take them from the intake, typed from these schemas.
 */
import { z } from 'zod';
import { intakeKind } from '../../platform/intake.js';

/** A "Document this thread" shortcut: which thread, who asked, and the modal to update. */
export interface PreviewIntake {
  channel: string;
  threadTs: string;
  user: string;
  /** external_id of the modal the listener opened. */
  externalId: string;
}

const previewSchema: z.ZodType<PreviewIntake> = z.looseObject({
  channel: z.string(),
  threadTs: z.string(),
  user: z.string(),
  externalId: z.string(),
});

/** Kinds of intake the thread-context feature handles. */
export const INTAKE = {
  preview: intakeKind('thread-context.preview', previewSchema, { awaited: true }),
};
