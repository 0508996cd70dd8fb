import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { STANDING_PROMPTS } from '../../src/features/agent-view/index.js';
import { REPORT_KINDS } from '../../src/features/reports/menu.js';
import { DIGEST_SUBCOMMANDS } from '../../src/features/reports/digests/subcommands.js';
import { parseVisitorsCommand } from '../../src/features/reports/query.js';
import { parseSettingsCommand, type SettingsCommand } from '../../src/features/settings/command.js';

// Slack's JSON Schema for v1 app manifests, copied to test/fixtures/slack (see SOURCE.md there).
const schema = JSON.parse(
  readFileSync(new URL('../fixtures/slack/manifest.schema.1.0.0.json', import.meta.url), 'utf8'),
);
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv); // CommonJS module: NodeNext sees its default export as .default
  return ajv.compile(schema);
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The Socket Mode variant the manifest's header comment describes: socket_mode_enabled, seven request URLs removed. */
function socketVariant() {
  const socket = structuredClone(manifest);
  socket.settings.socket_mode_enabled = true;
  for (const c of socket.features.slash_commands) delete c.url;
  delete socket.settings.event_subscriptions.request_url;
  delete socket.settings.interactivity.request_url;
  return socket;
}

/**
 * Type-checks each manifest with tsc (one program, one file each) against the manifest type
 * @slack/web-api 8 declares (`AppsManifestCreateArguments['manifest']`, the body of
 * apps.manifest.create), as object literals so that unknown fields are errors too. @slack/web-api
 * 8.2's bot scope union has no `assistant:write` (Slack documents it: assistant.threads.setSuggestedPrompts,
 * and the agent feature adds it), so that one scope is taken out here and checked by a test of its own.
 * @returns tsc's diagnostics per case, as text.
 */
function manifestTypeErrors(cases: Record<string, unknown>): Record<string, string[]> {
  const files = new Map<string, { name: string; text: string }>();
  for (const [name, m] of Object.entries(cases)) {
    const copy = structuredClone(m) as { oauth_config?: { scopes?: { bot?: string[] } } };
    const scopes = copy.oauth_config?.scopes;
    if (scopes?.bot) scopes.bot = scopes.bot.filter((s) => s !== 'assistant:write');
    const text = `import type { AppsManifestCreateArguments } from '@slack/web-api';\nexport const manifest: AppsManifestCreateArguments['manifest'] = ${JSON.stringify(copy)};\n`;
    files.set(`${ROOT}test/unit/manifest-typecheck-${name}.generated.ts`, { name, text });
  }
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, ...rest) => {
    const virtual = files.get(file);
    return virtual ? ts.createSourceFile(file, virtual.text, lang) : getSourceFile(file, lang, ...rest);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => files.has(file) || fileExists(file);
  const program = ts.createProgram([...files.keys()], options, host);
  const out: Record<string, string[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const name = (d.file && files.get(d.file.fileName)?.name) ?? 'other';
    (out[name] ??= []).push(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }
  return out;
}

describe('manifest.yml', () => {
  it("validates against Slack's manifest schema", () => {
    const validate = validator();
    const ok = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schema really rejects a broken manifest (the check can fail)', () => {
    const validate = validator();
    expect(validate({ ...manifest, display_information: { name: '' } })).toBe(false);
    expect(validate({ ...manifest, settings: { ...manifest.settings, interactivity: { is_enabled: 'yes' } } })).toBe(
      false,
    );
    expect(validate({ ...manifest, features: { ...manifest.features, slash_commands: [{ command: '/x' }] } })).toBe(
      false,
    );
  });

  it('declares the commands, all served by /slack/events', () => {
    const cmds = manifest.features.slash_commands.map((c: { command: string; url: string }) => [
      c.command,
      new URL(c.url).pathname,
    ]);
    expect(cmds).toEqual([
      ['/docs-edit', '/slack/events'],
      ['/docs-reply', '/slack/events'],
      ['/docs-ask', '/slack/events'],
      ['/docs-visitors', '/slack/events'],
      ['/docs-settings', '/slack/events'],
    ]);
  });

  it("usage hints name every report, subcommand and setting the commands' parsers take, within Slack's 1000 characters", () => {
    const hint = (command: string): string =>
      manifest.features.slash_commands.find((c: { command: string }) => c.command === command).usage_hint;
    for (const c of manifest.features.slash_commands) expect(c.usage_hint.length).toBeLessThanOrEqual(1000); // Slack: "Maximum length is 1000 characters"
    const visitors = hint('/docs-visitors');
    const words = [...REPORT_KINDS.filter((k) => k !== 'visitors'), ...DIGEST_SUBCOMMANDS, 'help'];
    for (const word of words) {
      expect(visitors.split(/[\s[\]|]+/)).toContain(word);
      expect(parseVisitorsCommand(word, { subcommands: DIGEST_SUBCOMMANDS }).kind).not.toBe('invalid');
    }
    // Every kind of /docs-settings command but `show` (no words), with the keyword that asks for it
    // (a new kind fails tsc here until it is added, and then this test until the hint names it).
    const keywords: Record<Exclude<SettingsCommand['kind'], 'show' | 'invalid'>, string> = {
      help: 'help',
      project: 'project proj_a',
      followups: 'followups anyone',
      mentions: 'mentions ask',
      'answer-all': 'answer-all on',
      scope: 'scope version=v2',
      experts: 'experts off',
    };
    const settings = hint('/docs-settings');
    for (const [kind, text] of Object.entries(keywords)) {
      expect(parseSettingsCommand(text, ['proj_a'], { adminUsers: [], asking: true }).kind).toBe(kind);
      expect(settings.split(/[\s[\]|]+/)).toContain(text.split(' ')[0]);
    }
  });

  it('subscribes to the events the bot listens to, with the scopes they need', () => {
    const events: string[] = manifest.settings.event_subscriptions.bot_events;
    const scopes: string[] = manifest.oauth_config.scopes.bot;
    expect(events).toEqual(
      expect.arrayContaining(['app_mention', 'app_home_opened', 'message.channels', 'message.groups', 'message.im']),
    );
    // Slack's events API: each event type's required scope.
    const needs: Record<string, string> = {
      app_mention: 'app_mentions:read',
      'message.channels': 'channels:history',
      'message.groups': 'groups:history',
      'message.im': 'im:history',
    };
    for (const e of events) if (needs[e]) expect(scopes).toContain(needs[e]);
    expect(scopes).toEqual(
      expect.arrayContaining(['commands', 'chat:write', 'reactions:write', 'users:read', 'files:write']),
    );
    expect(manifest.settings.interactivity).toMatchObject({ is_enabled: true });
    expect(new URL(manifest.settings.interactivity.request_url).pathname).toBe('/slack/events');
  });

  it('matches the manifest type of @slack/web-api 8 (tsc), in HTTP and Socket Mode form, and the check can fail', () => {
    const errors = manifestTypeErrors({
      http: manifest,
      socket: socketVariant(),
      promptWithoutMessage: {
        ...manifest,
        features: {
          ...manifest.features,
          agent_view: { agent_description: 'x', suggested_prompts: [{ title: 'no message' }] },
        },
      },
      misspeltEvent: {
        ...manifest,
        settings: { ...manifest.settings, event_subscriptions: { bot_events: ['app_context_change'] } },
      },
    });
    expect(errors.http).toEqual([]);
    expect(errors.socket).toEqual([]);
    expect(errors.other ?? []).toEqual([]);
    expect(errors.promptWithoutMessage?.join()).toMatch(/message/);
    expect(errors.misspeltEvent?.join()).toMatch(/app_context_change/);
  }, 60_000);

  it('declares the agent view: a description of at most 300 characters and 2-4 suggestions, the same the Messages tab sets', () => {
    const view = manifest.features.agent_view;
    expect(typeof view.agent_description).toBe('string');
    expect(view.agent_description.length).toBeGreaterThan(0);
    expect(view.agent_description.length).toBeLessThanOrEqual(300); // Slack: "Maximum length is 300 characters"
    expect(view.suggested_prompts.length).toBeGreaterThanOrEqual(2);
    expect(view.suggested_prompts.length).toBeLessThanOrEqual(4); // Slack: "A maximum of 4 suggested prompts"
    for (const p of view.suggested_prompts)
      expect(p).toEqual({ title: expect.stringMatching(/\S/), message: expect.stringMatching(/\S/) });
    expect(view.suggested_prompts).toEqual(STANDING_PROMPTS);
  });

  it('subscribes to app_context_changed and asks for assistant:write (the agent view), in both forms', () => {
    for (const m of [manifest, socketVariant()]) {
      expect(m.settings.event_subscriptions.bot_events).toContain('app_context_changed');
      expect(m.oauth_config.scopes.bot).toContain('assistant:write');
      expect(m.settings.event_subscriptions.bot_events).not.toContain('agent_session_stopped'); // no stop button: the docs API cannot stop a job
    }
  });

  it('the Socket Mode variant its header comment describes (seven request URLs removed) is valid too', () => {
    const text = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
    const urls = text.match(/^\s*(url|request_url): /gm) ?? [];
    expect(urls).toHaveLength(7);
    expect(text).toContain('remove the seven request URLs');
    const socket = structuredClone(manifest);
    socket.settings.socket_mode_enabled = true;
    for (const c of socket.features.slash_commands) delete c.url;
    delete socket.settings.event_subscriptions.request_url;
    delete socket.settings.interactivity.request_url;
    const validate = validator();
    expect(validate(socket), JSON.stringify(validate.errors)).toBe(true);
    expect(JSON.stringify(socket)).not.toMatch(/https:/);
  });

  it('declares the "Document this thread" message shortcut, and the scopes to read threads and members in every kind of conversation', () => {
    expect(manifest.features.shortcuts).toEqual([
      expect.objectContaining({ name: 'Document this thread', type: 'message', callback_id: 'document_thread' }),
    ]);
    const scopes: string[] = manifest.oauth_config.scopes.bot;
    expect(scopes).toEqual(
      expect.arrayContaining([
        'channels:history',
        'groups:history',
        'im:history',
        'mpim:history',
        'channels:read',
        'groups:read',
        'im:read',
        'mpim:read',
      ]),
    );
  });

  it('lists each scope once (one comment says what it is for), and each event once', () => {
    const text = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
    for (const list of [
      manifest.oauth_config.scopes.bot,
      manifest.settings.event_subscriptions.bot_events,
    ] as string[][])
      expect(list.filter((s, i) => list.indexOf(s) !== i)).toEqual([]);
    // The read scopes' comments name the methods the code calls with them.
    const comment = (scope: string) => text.match(new RegExp(`- ${scope} +#(.*)`))?.[1] ?? '';
    for (const method of ['users.conversations', 'conversations.info', 'conversations.members'])
      expect(comment('channels:read')).toContain(method);
  });
});
