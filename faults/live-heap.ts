// The watcher's live heap, measured without disturbing it: SIGUSR1 opens Node's inspector (on
// a free port: the fault environment starts the module with --inspect-port=0, so two runs on
// one machine do not meet), which prints its address to the process's log; a short-lived
// client asks it to collect garbage and report the heap in use. A heap snapshot would say the
// same but leaves the watcher's RSS 150 MB higher for the rest of its life, which would falsify
// the RSS series the soak samples.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";

const run = promisify(execFile);

/** The module's Node flag that makes SIGUSR1 open the inspector on a free port. */
export const INSPECT_ON_SIGNAL = "--inspect-port=0";

/** The last inspector address the log names ("Debugger listening on ws://..."). */
function debuggerUrl(logFile: string): string | undefined {
  const all = [...readFileSync(logFile, "utf8").matchAll(/Debugger listening on (ws:\/\/\S+)/g)];
  return all.at(-1)?.[1];
}
// Runs in a child Node with --experimental-websocket (Node 20 has no WebSocket client without it).
const CLIENT = `
const ws = new WebSocket(process.argv[1]);
const send = (id, method) => ws.send(JSON.stringify({ id, method }));
ws.onopen = () => { send(1, "HeapProfiler.collectGarbage"); };
ws.onmessage = event => {
  const msg = JSON.parse(event.data);
  if (msg.id === 1) send(2, "Runtime.getHeapUsage");
  if (msg.id === 2) { console.log(msg.result.usedSize); ws.close(); }
};
ws.onerror = () => process.exit(1);
setTimeout(() => process.exit(2), 60000).unref();
`;

/** The live heap of process `pid`, whose output goes to `logFile`, in MB after a full GC. */
export async function liveHeapMb(pid: number, logFile: string): Promise<number> {
  const before = debuggerUrl(logFile);
  // Once opened, the inspector stays open: a second signal prints nothing new.
  process.kill(pid, "SIGUSR1");
  let url = before;
  for (let tries = 0; tries < 50 && url === before; tries++) {
    await sleep(200);
    url = debuggerUrl(logFile);
  }
  if (!url) throw new Error(`process ${pid} opened no inspector (nothing in ${logFile})`);
  const { stdout } = await run(process.execPath, ["--experimental-websocket", "-e", CLIENT, url]);
  return Math.round((Number(stdout.trim()) / 1048576) * 10) / 10;
}
