/** What the document-thread listeners record before they ack (the intake kinds and their payloads); the handlers take them from the intake. */

/** Kinds of intake the thread-context feature handles. */
export const THREAD_CONTEXT_INTAKE = {
  preview: 'thread-context.preview',
} as const;

/** A "Document this thread" shortcut: which thread, who asked, and the modal to update. */
export interface PreviewIntake {
  channel: string;
  threadTs: string;
  user: string;
  /** external_id of the modal the listener opened. */
  externalId: string;
}
