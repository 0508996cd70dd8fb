import { describe, expect, it } from 'vitest';
import { parseSettingsCommand, settingsUsage } from '../../../../src/features/settings/command.js';

const PROJECTS = ['proj_a', 'proj_b', 'docs-v2'];
const FACTS = { adminUsers: ['U0SETTINGS'], asking: true };
const parse = (text: string) => parseSettingsCommand(text, PROJECTS, FACTS);
const message = (text: string) => {
  const cmd = parse(text);
  if (cmd.kind !== 'invalid') throw new Error(`expected a mistake, got ${cmd.kind}`);
  return cmd.message;
};

describe('/docs-settings arguments', () => {
  it('shows the settings with no words (or `show`), and the usage for `help`', () => {
    expect(parse('')).toEqual({ kind: 'show' });
    expect(parse('   ')).toEqual({ kind: 'show' });
    expect(parse('SHOW')).toEqual({ kind: 'show' });
    expect(parse('help')).toEqual({ kind: 'help' });
    expect(settingsUsage(PROJECTS, FACTS)).toContain('`proj_a` (default), `proj_b`, `docs-v2`');
  });

  it('the usage names who may change settings and what to do, and says when asking the docs is off', () => {
    expect(settingsUsage(PROJECTS, FACTS)).toMatch(
      /\nWorkspace admins and <@U0SETTINGS> can change them: ask one of them\.$/,
    );
    expect(settingsUsage(PROJECTS, FACTS)).not.toContain("isn't set up");
    expect(settingsUsage(PROJECTS, { adminUsers: [], asking: false })).toContain(
      "Asking the docs isn't set up here: a mention always starts a docs job and no message is answered as a question, " +
        'so `mentions`, `answer-all`, `scope` and `experts` are saved but have no effect until the people who run Docs Agent set it up.\n' +
        'Workspace admins can change them: ask one of them.',
    );
  });

  it('sets what a mention is: auto, ask, edit or back to the default; anything else is a mistake', () => {
    expect(parse('mentions ask')).toEqual({ kind: 'mentions', mode: 'ask' });
    expect(parse('Mentions EDIT')).toEqual({ kind: 'mentions', mode: 'edit' });
    expect(parse('mentions default')).toEqual({ kind: 'mentions', mode: null });
    expect(message('mentions sometimes')).toContain('is not a mentions mode');
    expect(message('mentions')).toContain('Say `auto`, `ask`, `edit` or `default`');
  });

  it('turns a question channel on and off; anything else is a mistake', () => {
    expect(parse('answer-all on')).toEqual({ kind: 'answer-all', on: true });
    expect(parse('Answer-All OFF')).toEqual({ kind: 'answer-all', on: false });
    expect(message('answer-all maybe')).toContain('Say `on` or `off` after `answer-all`');
    expect(message('answer-all on now')).toContain('Say `on` or `off`');
  });

  it("sets the channel's docs scope (the assistant's filter), or turns it off", () => {
    expect(parse('scope version=v2')).toEqual({ kind: 'scope', scope: { version: 'v2' } });
    expect(parse('scope Language=fr groups=admins,beta,admins version=2.1')).toEqual({
      kind: 'scope',
      scope: { language: 'fr', groups: ['admins', 'beta'], version: '2.1' },
    });
    expect(parse('scope off')).toEqual({ kind: 'scope', scope: null });
    expect(message('scope')).toContain('scope version=V language=L groups=A,B|off');
    expect(message('scope tag=x')).toContain('is not `version=…`, `language=…` or `groups=…`');
    expect(message('scope version=v2 version=v3')).toContain('`version` is given twice');
    expect(message('scope version=')).toContain('needs a value');
    expect(message('scope groups=a,<!here>')).toContain('&lt;!here&gt;');
    expect(message('scope version=`v2`')).not.toContain('``');
    const many = Array.from({ length: 21 }, (_, i) => `g${i}`).join(',');
    expect(message(`scope groups=${many}`)).toContain('At most 20 groups');
  });

  it('names the docs team as a channel or a user group, as Slack escapes them; anything else is a mistake', () => {
    expect(parse('experts <#C0EXPERTS|docs-team>')).toEqual({
      kind: 'experts',
      experts: { kind: 'channel', id: 'C0EXPERTS' },
    });
    expect(parse('experts <#G0PRIV>')).toEqual({ kind: 'experts', experts: { kind: 'channel', id: 'G0PRIV' } });
    expect(parse('experts <!subteam^S0DOCS|@docs-team>')).toEqual({
      kind: 'experts',
      experts: { kind: 'usergroup', id: 'S0DOCS' },
    });
    expect(parse('experts off')).toEqual({ kind: 'experts', experts: null });
    expect(message('experts #docs-team')).toContain('picked from Slack');
    expect(message('experts <@U0BOB>')).toContain('a channel');
    expect(message('experts <#C1|a> <#C2|b>')).toContain('one channel or one user group');
  });

  it('maps the channel to a configured project by its exact id, or back to the default', () => {
    expect(parse('project proj_b')).toEqual({ kind: 'project', projectId: 'proj_b' });
    expect(parse('Project   docs-v2 ')).toEqual({ kind: 'project', projectId: 'docs-v2' });
    expect(parse('project default')).toEqual({ kind: 'project', projectId: null });
    expect(parseSettingsCommand('project default', ['default', 'x'], FACTS)).toEqual({
      kind: 'project',
      projectId: 'default',
    });
  });

  it('answers an unknown project id with the valid ones', () => {
    expect(message('project proj_c')).toBe(
      ":warning: `proj_c` is not one of this workspace's docs projects. Choose one of `proj_a` (default), `proj_b`, `docs-v2` (an operator sets which projects a workspace may use).",
    );
    expect(message('project PROJ_B')).toMatch(/is not one of this workspace's docs projects/); // ids are exact
    expect(message('project')).toMatch(/^:warning: Which project\? One of `proj_a` \(default\)/);
    expect(message('project proj_a proj_b')).toMatch(/Give one project id/);
  });

  it('sets who may continue jobs: anyone, requester, or the workspace default', () => {
    expect(parse('followups anyone')).toEqual({ kind: 'followups', policy: 'anyone' });
    expect(parse('followups Requester')).toEqual({ kind: 'followups', policy: 'requester' });
    expect(parse('follow-ups requester')).toEqual({ kind: 'followups', policy: 'requester' });
    expect(parse('followups default')).toEqual({ kind: 'followups', policy: null });
    expect(message('followups everyone')).toMatch(/`everyone` is not a follow-up policy: say `anyone` or `requester`/);
    expect(message('followups')).toMatch(/Say `anyone`, `requester` or `default`/);
  });

  it('names an unknown word and shows the usage; a backtick in it cannot break the code span', () => {
    const m = message('colour blue');
    expect(m).toMatch(/^:warning: I don't know `colour`\.\n\*Usage:\*/);
    expect(message('`rm')).toContain("`'rm`");
    expect(message('show extra')).toMatch(/`show` takes nothing after it/);
  });
});
