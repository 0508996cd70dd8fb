/** The fake docs API's answers: a status, a JSON body and extra headers. */

/** One HTTP answer of the fake docs API; `body` is sent JSON-encoded. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string> | undefined;
}

/** An error answer `{"error": message}` with `status` (the vendor's error shape) and optional extra headers. */
export const errorReply = (status: number, message: string, headers?: Record<string, string>): Reply => ({
  status,
  body: { error: message },
  headers,
});
