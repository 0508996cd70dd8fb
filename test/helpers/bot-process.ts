import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../sandbox/free-port.js';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The bot running as a separate OS process (`node --import tsx src/main.ts`, as `npm start`). */
export interface BotProcess {
  proc: ChildProcess;
  port: number;
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  /** Everything the process printed on stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited and its output is all read ('close'). */
  exited: Promise<number | string>;
  /** SIGKILL, and wait for the exit. */
  kill9(): Promise<void>;
}

/**
 * Starts the bot with `env` (merged over a minimal PATH/HOME) and waits until `/healthz`
 * answers `healthyStatus` (200; a test of the unhealthy case passes 503), or rejects after
 * `timeoutMs` (ms) with the process output.
 */
export async function startBotProcess(
  env: Record<string, string>,
  timeoutMs = 20_000,
  healthyStatus = 200,
): Promise<BotProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    // 'close', not 'exit': the stdio pipes are drained by then, so output() holds the last lines.
    proc.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const url = `http://127.0.0.1:${port}`;
  const bot: BotProcess = {
    proc,
    port,
    url,
    output: () => out,
    exited,
    kill9: async () => {
      proc.kill('SIGKILL');
      await exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  while (Date.now() < deadline && !exitedEarly) {
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.status === healthyStatus) return bot;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`bot's /healthz never answered ${healthyStatus} on ${url}:\n${out}`);
}

/** Runs the bot entry point to completion with `env` (for config errors); returns code and output. */
export async function runBotToExit(
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<{ code: number | null; output: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => proc.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output };
}
