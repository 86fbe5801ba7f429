// The watcher's live heap, measured without disturbing it: SIGUSR1 opens Node's inspector on
// 127.0.0.1:9229, and a short-lived client asks it to collect garbage and report the heap in
// use. A heap snapshot would say the same but leaves the watcher's RSS 150 MB higher for the
// rest of its life, which would falsify the RSS series the soak samples.
import { execFile } from "node:child_process";
import { get } from "node:http";
import { promisify } from "node:util";
import { sleep } from "./context";

const run = promisify(execFile);
const INSPECTOR = "http://127.0.0.1:9229/json/list";

function debuggerUrl(): Promise<string | undefined> {
  return new Promise(resolve => {
    get(INSPECTOR, res => {
      let body = "";
      res.on("data", c => (body += c));
      res.on("end", () => {
        try {
          const [target] = JSON.parse(body) as { webSocketDebuggerUrl?: string }[];
          resolve(target?.webSocketDebuggerUrl);
        } catch {
          resolve(undefined);
        }
      });
    }).on("error", () => resolve(undefined));
  });
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

/** The live heap of process `pid` in MB, after a full garbage collection. */
export async function liveHeapMb(pid: number): Promise<number> {
  process.kill(pid, "SIGUSR1");
  let url: string | undefined;
  for (let tries = 0; tries < 50 && !url; tries++) {
    url = await debuggerUrl();
    if (!url) await sleep(200);
  }
  if (!url) throw new Error(`the inspector of process ${pid} did not open on ${INSPECTOR}`);
  const { stdout } = await run(process.execPath, ["--experimental-websocket", "-e", CLIENT, url]);
  return Math.round((Number(stdout.trim()) / 1048576) * 10) / 10;
}
