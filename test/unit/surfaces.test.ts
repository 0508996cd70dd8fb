import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registerLinkButtons } from '../../src/platform/slack/app.js';
import { SURFACES, type Surface, type SurfaceOwner } from '../../src/surfaces.js';
import { anything, recordingApp, type Registration } from '../helpers/recording-app.js';

// src/surfaces.ts is the map of the bot's surfaces: this test holds it to manifest.yml and to what
// the features actually register (their listeners on a recording Bolt app, their intake handlers on
// a recording intake), so a surface added, moved or dropped without its row fails here.

const FEATURES = fileURLToPath(new URL('../../src/features/', import.meta.url));
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));

/** Every .ts module under `dir`, recursively. */
function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const rows = (kind: Surface['kind']) => SURFACES.filter((s) => s.kind === kind);
const ids = (kind: Surface['kind']) => [...new Set(rows(kind).map((s) => s.id))].sort();

/** What each owner registers on the app, and the intake kinds it handles and declares. */
interface Found {
  registrations: Array<Registration & { owner: SurfaceOwner }>;
  handled: Array<{ name: string; owner: SurfaceOwner }>;
  declared: string[];
}

/** Runs every feature's `register` (listeners.ts) and `register…Handler(s)` against recorders. */
async function discover(): Promise<Found> {
  const found: Found = { registrations: [], handled: [], declared: [] };
  const platform = recordingApp();
  registerLinkButtons(platform.app);
  found.registrations.push(...platform.registrations.map((r) => ({ ...r, owner: 'platform' as const })));
  for (const feature of readdirSync(FEATURES)) {
    const owner = feature as SurfaceOwner;
    const handled = new Set<string>();
    const intake = { on: (kind: { name: string }) => void handled.add(kind.name) };
    for (const file of modules(join(FEATURES, feature))) {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) {
        if (name === 'register' && file.endsWith('listeners.ts') && typeof value === 'function') {
          const { app, registrations } = recordingApp();
          value(app, anything());
          found.registrations.push(...registrations.map((r) => ({ ...r, owner })));
        }
        if (/^register\w*Handlers?$/.test(name) && typeof value === 'function') value(intake, anything());
        if (name === 'INTAKE' && value && typeof value === 'object')
          found.declared.push(...Object.values(value as Record<string, { name: string }>).map((k) => k.name));
      }
    }
    found.handled.push(...[...handled].map((name) => ({ name, owner })));
  }
  return found;
}

/** The rows of `kind` a registration answers: its id, or for a pattern the rows whose example it matches. */
function covered(r: Registration): Surface[] {
  const kind = r.kind === 'message' ? 'event' : r.kind;
  return rows(kind as Surface['kind']).filter((s) =>
    r.pattern ? new RegExp(r.id).test(s.id.replace(/\*$/, '12')) : s.id === r.id,
  );
}

let found: Found;
beforeAll(async () => {
  found = await discover();
}, 60_000);

describe('src/surfaces.ts, the map of the surfaces', () => {
  it('names each surface once per owner, and only owners that exist', () => {
    const keys = SURFACES.map((s) => `${s.kind} ${s.id} ${s.owner}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    const owners = new Set<string>([...readdirSync(FEATURES), 'platform']);
    expect(SURFACES.filter((s) => !owners.has(s.owner))).toEqual([]);
  });

  it("has manifest.yml's slash commands, shortcuts and subscribed events, no more and no fewer", () => {
    const commands = (manifest.features.slash_commands as Array<{ command: string }>).map((c) => c.command);
    expect(ids('command')).toEqual([...commands].sort());
    const shortcuts = (manifest.features.shortcuts as Array<{ callback_id: string }>).map((s) => s.callback_id);
    expect(ids('shortcut')).toEqual([...shortcuts].sort());
    // message.channels, message.groups, message.im: one `message` event to Bolt.
    const events = (manifest.settings.event_subscriptions.bot_events as string[]).map((e) => e.replace(/\..*$/, ''));
    const workspaceAppEvents = SURFACES.filter((s) => s.kind === 'event' && !s.orgAppOnly).map((s) => s.id);
    expect([...new Set(workspaceAppEvents)].sort()).toEqual([...new Set(events)].sort());
  });

  it('has every command, shortcut, action, view and event the features register, with the feature that registers it', () => {
    expect(found.registrations.length).toBeGreaterThan(30);
    const unmapped = found.registrations
      .filter((r) => !covered(r).some((s) => s.owner === r.owner))
      .map((r) => `${r.owner}: ${r.kind} ${r.id}`);
    expect(unmapped).toEqual([]);
  });

  it('has no surface nobody registers', () => {
    const registered = rows('command')
      .concat(rows('shortcut'), rows('action'), rows('view'), rows('event'))
      .filter((s) => !found.registrations.some((r) => r.owner === s.owner && covered(r).includes(s)))
      .map((s) => `${s.owner}: ${s.kind} ${s.id}`);
    expect(registered).toEqual([]);
  });

  it('has every intake kind the features declare, owned by the feature that handles it', () => {
    expect(ids('intake')).toEqual([...new Set(found.declared)].sort());
    const handled = found.handled.map((h) => `${h.name} ${h.owner}`).sort();
    expect(
      rows('intake')
        .map((s) => `${s.id} ${s.owner}`)
        .sort(),
    ).toEqual(handled);
  });

  it('the recorders see what they are given (a listener module found is one run)', () => {
    const files = modules(FEATURES).filter((f) => f.endsWith('listeners.ts'));
    const owners = new Set(files.map((f) => relative(FEATURES, f).split('/')[0]));
    expect(new Set(found.registrations.map((r) => r.owner))).toEqual(new Set([...owners, 'platform']));
  });
});
