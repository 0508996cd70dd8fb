// Preloaded into the bot by `SCALE_PROFILE=<dir> npm run bench` (node --import): samples the bot's CPU
// with the inspector's profiler and writes `<dir>/bot-<pid>.cpuprofile` when the process exits
// (open it in Chrome DevTools' Performance panel or VS Code).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import process from 'node:process';

const dir = process.env.CPU_PROFILE_DIR ?? '.';
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 1000 });
session.post('Profiler.start');
process.on('exit', () => {
  // An in-process session answers synchronously, so the profile is written before the exit.
  session.post('Profiler.stop', (err, res) => {
    if (!err) writeFileSync(`${dir}/bot-${process.pid}.cpuprofile`, JSON.stringify(res.profile));
  });
});
