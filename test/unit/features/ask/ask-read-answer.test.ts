import { describe, expect, it } from 'vitest';
import { readAnswer } from '../../../../src/features/ask/answer/safe-text.js';
import type { AssistantEvent } from '../../../../src/platform/docs-api/ui-message-stream.js';

const page = { path: '/sso', title: 'SSO', content: 'SAML', metadata: {} };
const search = (pages: (typeof page)[]): AssistantEvent => ({ type: 'search', toolCallId: 't', query: 'q', pages });
const text = (delta: string) => ({ type: 'text', delta }) as AssistantEvent;

async function read(events: AssistantEvent[]) {
  const shown: string[] = [];
  const writer = { truncated: false, append: async (t: string) => void shown.push(t) };
  async function* gen() {
    yield* events;
  }
  const r = await readAnswer(gen(), writer, 'https://docs.acme.test');
  return { ...r, shown: shown.join('') };
}

describe('reading an answer: no guess when the assistant found no page', () => {
  it('a search that found no page before the text: nothing is shown, the text is kept for the record', async () => {
    const r = await read([search([]), text('Probably you can set it under '), text('Settings.')]);
    expect(r.shown).toBe('');
    expect(r.held).toBe(true);
    expect(r.text).toBe('Probably you can set it under Settings.');
  });

  it('an answer from pages streams as it comes; so does one that never searched', async () => {
    const found = await read([search([page]), text('Use SAML.')]);
    expect([found.shown, found.held, found.pages]).toEqual(['Use SAML.', undefined, [page]]);
    const chat = await read([text('Hello!')]);
    expect([chat.shown, chat.held]).toEqual(['Hello!', undefined]);
  });

  it('a later search that finds a page shows the held text after all', async () => {
    const r = await read([search([]), text('Looking further. '), search([page]), text('Use SAML.')]);
    expect(r.held).toBeUndefined();
    expect(r.shown).toBe('Looking further. Use SAML.');
  });
});
