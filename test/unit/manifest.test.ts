import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Slack's JSON Schema for v1 app manifests, copied to test/fixtures/slack (see SOURCE.md there).
const schema = JSON.parse(readFileSync(new URL('../fixtures/slack/manifest.schema.1.0.0.json', import.meta.url), 'utf8'));
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv); // CommonJS module: NodeNext sees its default export as .default
  return ajv.compile(schema);
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
    expect(validate({ ...manifest, settings: { ...manifest.settings, interactivity: { is_enabled: 'yes' } } })).toBe(false);
    expect(validate({ ...manifest, features: { ...manifest.features, slash_commands: [{ command: '/x' }] } })).toBe(false);
  });

  it('declares the commands, all served by /slack/events', () => {
    const cmds = manifest.features.slash_commands.map((c: { command: string; url: string }) => [c.command, new URL(c.url).pathname]);
    expect(cmds).toEqual([
      ['/docs-edit', '/slack/events'],
      ['/docs-reply', '/slack/events'],
      ['/docs-visitors', '/slack/events'],
      ['/docs-settings', '/slack/events'],
    ]);
  });

  it('subscribes to the events the bot listens to, with the scopes they need', () => {
    const events: string[] = manifest.settings.event_subscriptions.bot_events;
    const scopes: string[] = manifest.oauth_config.scopes.bot;
    expect(events).toEqual(expect.arrayContaining(['app_mention', 'app_home_opened', 'message.channels', 'message.groups', 'message.im']));
    // Slack's events API: each event type's required scope.
    const needs: Record<string, string> = {
      app_mention: 'app_mentions:read',
      'message.channels': 'channels:history',
      'message.groups': 'groups:history',
      'message.im': 'im:history',
    };
    for (const e of events) if (needs[e]) expect(scopes).toContain(needs[e]);
    expect(scopes).toEqual(expect.arrayContaining(['commands', 'chat:write', 'reactions:write', 'users:read', 'files:write']));
    expect(manifest.settings.interactivity).toMatchObject({ is_enabled: true });
    expect(new URL(manifest.settings.interactivity.request_url).pathname).toBe('/slack/events');
  });

  it("the Socket Mode variant its header comment describes (six request URLs removed) is valid too", () => {
    const text = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
    const urls = text.match(/^\s*(url|request_url): /gm) ?? [];
    expect(urls).toHaveLength(6);
    expect(text).toContain('remove the six request URLs');
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
    expect(manifest.features.shortcuts).toEqual([expect.objectContaining({ name: 'Document this thread', type: 'message', callback_id: 'document_thread' })]);
    const scopes: string[] = manifest.oauth_config.scopes.bot;
    expect(scopes).toEqual(expect.arrayContaining(['channels:history', 'groups:history', 'im:history', 'mpim:history', 'channels:read', 'groups:read', 'im:read', 'mpim:read']));
  });
});
