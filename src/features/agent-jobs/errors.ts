/** The codes of the agent-jobs feature's own errors (see platform/errors.ts: errors are decided on by code). */
export const AgentJobsErrorCode = {
  /**
   * A follow-up was sent to the agent but Redis would not record it: the intake tries again
   * (FollowUpUnrecordedError).
   */
  FollowUpUnrecorded: 'follow_up_unrecorded',
  /** A start's last change to its status message must wait (StatusChangeDeferredError). */
  StatusChangeDeferred: 'status_change_deferred',
} as const;
