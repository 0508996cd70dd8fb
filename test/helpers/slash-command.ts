/**
 * A slash command's listener arguments as Bolt passes them (`{ command }`): U0ALICE typing `text`
 * in C0DOCS of T1, with the given trigger_id and a response_url.
 */
export function slashCommandArgs(text: string, triggerId: string) {
  return {
    command: {
      text,
      team_id: 'T1',
      channel_id: 'C0DOCS',
      user_id: 'U0ALICE',
      response_url: 'https://hooks.slack.com/commands/x',
      trigger_id: triggerId,
    },
  };
}
