// The helper processes a driver starts itself (Xvfb, WebKitWebDriver and the MiniBrowser under it):
// each runs in a process group of its own under a small sh watchdog that kills the whole group
// when its stdin (a pipe from this Node process) closes. So the group ends when its session closes,
// and also when the test process ends any other way (a failed beforeAll, a Jest worker killed on a
// timeout, even SIGKILL): no display or browser outlives the test run.
import { spawn } from 'node:child_process';

// $0 is the command, "$@" its arguments. The group is killed when the command exits (so its exit is
// the child's) or when `read` on the pipe from Node (kept as fd 4) returns at EOF: Node has gone.
// fd 3 goes to the command only (Xvfb writes its display number there).
const kWatchdog = 'exec 4<&0; "$0" "$@" </dev/null 4<&- & cmd=$!; exec 3>&-; { read _ <&4; kill -KILL 0; } & wait "$cmd"; kill -KILL 0';

const live = new Set();

process.once('exit', () => {
  for (const child of live) killGroup(child);
});

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  live.delete(child);
}

/**
 * Runs `command` in a new process group under the watchdog; `stdio` gives the command's fds from 1
 * on (fd 0 is the watchdog's pipe). The group is killed by stopGroup, or when Node exits.
 */
export function spawnGroup(command, args, { stdio = ['ignore', 'ignore'], ...options } = {}) {
  const child = spawn('/bin/sh', ['-c', kWatchdog, command, ...args], { ...options, stdio: ['pipe', ...stdio], detached: true });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Kills the child's whole process group and waits for the watchdog to exit. */
export async function stopGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    killGroup(child);
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  killGroup(child);
  await exited;
}
