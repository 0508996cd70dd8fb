/**
 * Errors the bot decides on carry a stable `code` (the `@slack/web-api` `ErrorCode` style: a
 * string-literal union, one const object per boundary), and every decision reads that code:
 * nothing is decided on an error's message or name. The platform's codes are here; the docs API's
 * are `DocsApiErrorCode` (docs-api/errors.ts), Redis' `RedisErrorCode` (redis-errors.ts), Slack's
 * the Web API's own (`ErrorCode`, and the `error` of a platform error; slack/errors.ts).
 */

/** An error with a stable `code` to decide on. */
export interface CodedError<C extends string = string> extends Error {
  readonly code: C;
}

/** The codes of the platform's own errors. */
export const PlatformErrorCode = {
  /**
   * A request's record was written but no replica acknowledgement could tell whether it is kept
   * (RecordUnconfirmedError).
   */
  IntakeUnconfirmed: 'intake_unconfirmed',
  /** Saved steps could not be confirmed on the Redis replicas before the step they guard (UnreplicatedStepError). */
  StepUnreplicated: 'step_unreplicated',
  /** An event's intake could not be recorded, so it is not acked and Slack redelivers it (EventNotRecordedError). */
  EventNotRecorded: 'event_not_recorded',
  /** A `response_url` answered outside 2xx (ResponseUrlError). */
  ResponseUrlRefused: 'response_url_refused',
  /** Membership of a conversation can't be told just now (MembersUnknownError). */
  MembersUnknown: 'members_unknown',
  /** An expected reason the bot cannot start: a token Slack refuses, a Redis that refuses WAIT (StartupError). */
  StartupRefused: 'startup_refused',
  /** A missing or invalid environment variable (ConfigError). */
  ConfigInvalid: 'config_invalid',
  /** OAuth mode: no installation is stored for the workspace or org asked for (InstallationError). */
  InstallationNotFound: 'installation_not_found',
  /**
   * OAuth mode: the installation's workspace or org is not in SLACK_INSTALL_ALLOWLIST (installed
   * before the list was set, or its id removed since); refused like one not stored (InstallationError).
   */
  InstallationNotAllowed: 'installation_not_allowed',
  /** OAuth mode: a stored installation was sealed with a key the bot does not have (InstallationError). */
  InstallationKeyUnknown: 'installation_key_unknown',
  /** OAuth mode: a stored installation does not open with its key: tampered, moved or malformed (InstallationError). */
  InstallationUnreadable: 'installation_unreadable',
  /**
   * OAuth mode: state kept per installation (the agent budget, channel settings) was asked for
   * with no installation in the request context; refused rather than fall back to the
   * single-token keys every installation would share (NoInstallationError).
   */
  InstallationMissing: 'installation_missing',
} as const;

/** One of {@link PlatformErrorCode}. */
export type PlatformErrorCode = (typeof PlatformErrorCode)[keyof typeof PlatformErrorCode];

/**
 * The `code` of `err` when it is an Error with a string code (the bot's, Slack's, Node's, undici's),
 * else undefined.
 */
export function errorCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether `err` carries `code`. Name the error's class as `E` to read its other fields:
 * `hasCode<UnreplicatedStepError>(err, PlatformErrorCode.StepUnreplicated) && err.reason`.
 */
export function hasCode<E extends CodedError = CodedError>(err: unknown, code: E['code']): err is E {
  return errorCode(err) === code;
}
