import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as clientNode from "@kubernetes/client-node";
import {
  SERVICE_ACCOUNT_TOKEN,
  tuneKubeClient,
  type KubeConfigModule,
  type UndiciModule,
} from "../../../capabilities/shared/cluster/kube-client-tuning";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const undici = require("undici") as typeof import("undici");
const reads = jest.fn(async (path: unknown, ...rest: unknown[]) => [path, ...rest].join(" "));
const fsPromises = { readFile: reads };
tuneKubeClient(
  undici as unknown as UndiciModule,
  clientNode as unknown as KubeConfigModule,
  fsPromises,
);

const kubeconfig = (server: string) => `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "${server}" } }]
users: [{ name: u, user: { token: secret } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;

describe("kube client tuning", () => {
  it("sends the requests of agents made alike through one connection", async () => {
    const sockets = new Set<unknown>();
    const server = createServer((request, response) => {
      sockets.add(request.socket);
      response.end("ok");
    });
    await new Promise<void>(done => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as { port: number };
    try {
      for (let i = 0; i < 10; i++) {
        // What kubernetes-fluent-client does for every request.
        const dispatcher = new undici.Agent({ keepAliveTimeout: 600_000, connect: { ca: "same" } });
        const response = await undici.fetch(`http://127.0.0.1:${port}/`, { dispatcher });
        expect(await response.text()).toBe("ok");
      }
      // One pool: undici may open a second connection while the first is being released.
      const pooled = sockets.size;
      expect(pooled).toBeLessThanOrEqual(2);
      const other = new undici.Agent({ keepAliveTimeout: 600_000, connect: { ca: "other" } });
      await (await undici.fetch(`http://127.0.0.1:${port}/`, { dispatcher: other })).text();
      expect(sockets.size).toBe(pooled + 1);
      // The shared agent closed by someone: it fails, and the next agent made alike takes over.
      const agent = () => new undici.Agent({ connect: { ca: "closed later" } });
      const get = async (dispatcher: InstanceType<typeof undici.Agent>) =>
        (await undici.fetch(`http://127.0.0.1:${port}/`, { dispatcher })).text();
      const shared = agent();
      expect(await get(shared)).toBe("ok");
      await shared.close();
      await expect(get(shared)).rejects.toThrow();
      expect(await get(agent())).toBe("ok");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("reuses the loaded kubeconfig and its fetch options for a few seconds", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "kubeconfig-")), "config");
    writeFileSync(file, kubeconfig("https://first:6443"));
    process.env.KUBECONFIG = file;
    const first = new clientNode.KubeConfig();
    first.loadFromDefault();
    writeFileSync(file, kubeconfig("https://second:6443"));
    const second = new clientNode.KubeConfig();
    second.loadFromDefault();
    expect(second.getCurrentCluster()?.server).toBe("https://first:6443");
    expect(second.getCurrentUser()?.token).toBe("secret");
    expect(second.applyToFetchOptions({})).toBe(first.applyToFetchOptions({}));
    expect((await second.applyToFetchOptions({})).headers).toBeDefined();
    // An explicit file or explicit options are never served from what was reused.
    const explicit = new clientNode.KubeConfig();
    explicit.loadFromFile(file);
    expect(explicit.getCurrentCluster()?.server).toBe("https://second:6443");
    expect(explicit.applyToFetchOptions({ method: "GET" })).not.toBe(first.applyToFetchOptions({}));
  });

  it("reuses kubernetes-fluent-client's read of the in-cluster token file, and no other read", async () => {
    expect(await fsPromises.readFile(SERVICE_ACCOUNT_TOKEN, "utf8")).toBe(
      `${SERVICE_ACCOUNT_TOKEN} utf8`,
    );
    await fsPromises.readFile(SERVICE_ACCOUNT_TOKEN, "utf8");
    await fsPromises.readFile("/etc/hostname", "utf8");
    await fsPromises.readFile("/etc/hostname", "utf8");
    await fsPromises.readFile(SERVICE_ACCOUNT_TOKEN);
    expect(reads.mock.calls.map(call => call.join(" "))).toEqual([
      `${SERVICE_ACCOUNT_TOKEN} utf8`,
      "/etc/hostname utf8",
      "/etc/hostname utf8",
      SERVICE_ACCOUNT_TOKEN,
    ]);
  });
});
