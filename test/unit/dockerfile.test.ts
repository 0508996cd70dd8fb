import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const text = readFileSync(new URL('Dockerfile', ROOT), 'utf8');
const dockerfile = DockerfileParser.parse(text);
const instructions = dockerfile.getInstructions();

/** The instructions of each stage (a stage starts at its FROM), by stage name. */
function stages(): Map<string, Instruction[]> {
  const out = new Map<string, Instruction[]>();
  let current: Instruction[] = [];
  for (const i of instructions) {
    if (i.getKeyword() === 'FROM') {
      current = [];
      out.set(
        dockerfile
          .getFROMs()
          .find((f) => f.getRange().start.line === i.getRange().start.line)
          ?.getBuildStage() ?? `#${out.size}`,
        current,
      );
    }
    current.push(i);
  }
  return out;
}

const args = (i: Instruction) => i.getArgumentsContent() ?? '';
const firstIndex = (list: Instruction[], pred: (i: Instruction) => boolean) => list.findIndex(pred);

describe('Dockerfile (the production image; Docker itself may not be on the test machine)', () => {
  it('is valid Dockerfile syntax (dockerfile-utils, the validator of the VS Code Docker extension)', () => {
    expect(validate(text).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('builds in one stage and runs in another, both on Node 24 LTS slim', () => {
    const froms = dockerfile.getFROMs();
    expect(froms.map((f) => f.getBuildStage())).toEqual(['build', 'runtime']);
    for (const f of froms) {
      expect(f.getImageName()).toBe('node');
      expect(f.getImageTag()).toMatch(/^24(\.\d+)*-[a-z]+-slim$/);
    }
    const build = stages().get('build')!;
    expect(build.some((i) => i.getKeyword() === 'RUN' && /\bnpm ci\b/.test(args(i)))).toBe(true);
    expect(build.some((i) => i.getKeyword() === 'RUN' && args(i).includes('npm run build'))).toBe(true);
  });

  it('installs no dev dependencies in the runtime stage, and takes only dist/ from the build', () => {
    const runtime = stages().get('runtime')!;
    const npmCi = runtime.filter((i) => i.getKeyword() === 'RUN' && /\bnpm (ci|install|i)\b/.test(args(i)));
    expect(npmCi).toHaveLength(1);
    expect(args(npmCi[0]!)).toMatch(/npm ci --omit=dev\b/);
    const copies = runtime.filter((i) => i.getKeyword() === 'COPY');
    const fromBuild = copies.filter((i) => /--from=build\b/.test(i.getTextContent()));
    expect(fromBuild.map(args)).toEqual(['/app/dist ./dist']);
    expect(
      copies.some((i) => /(^|\s)(src|node_modules|\.)(\/)?(\s|$)/.test(args(i).split(/\s+/).slice(0, -1).join(' '))),
    ).toBe(false);
  });

  it('installs the chart fonts in a layer before any application file, so code changes reuse it', () => {
    const runtime = stages().get('runtime')!;
    const fonts = firstIndex(
      runtime,
      (i) => i.getKeyword() === 'RUN' && /apt-get install\b.*\bfonts-dejavu-core\b/.test(args(i)),
    );
    const firstCopy = firstIndex(runtime, (i) => i.getKeyword() === 'COPY');
    expect(fonts).toBeGreaterThan(0);
    expect(fonts).toBeLessThan(firstCopy);
    // The package lists are removed in the same layer.
    expect(args(runtime[fonts]!)).toContain('rm -rf /var/lib/apt/lists/*');
  });

  it('runs the compiled bot as a non-root user, with a healthcheck on /healthz', () => {
    const runtime = stages().get('runtime')!;
    const users = runtime.filter((i) => i.getKeyword() === 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(args(users.at(-1)!)).not.toMatch(/^(root|0)(:|$)/);
    const cmd = runtime.filter((i) => i.getKeyword() === 'CMD');
    expect(cmd.map(args)).toEqual(['["node", "dist/main.js"]']);
    expect(firstIndex(runtime, (i) => i === users.at(-1))).toBeLessThan(firstIndex(runtime, (i) => i === cmd[0]));
    const health = runtime.filter((i) => i.getKeyword() === 'HEALTHCHECK');
    expect(health).toHaveLength(1);
    expect(args(health[0]!)).toMatch(/^CMD .*\/healthz/);
    expect(health[0]!.getTextContent()).toMatch(/--interval=\d+s/);
  });

  it('keeps .env, node_modules, dist and the tests out of the build context', () => {
    const ignored = readFileSync(new URL('.dockerignore', ROOT), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['.env', 'node_modules', 'dist', 'test', '.git']) expect(ignored).toContain(entry);
  });
});
