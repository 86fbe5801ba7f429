import net from "node:net";
import type { AddressInfo } from "node:net";
import { GitContentStore, failureReason, type GitClientKind } from "../../../lib/git";
import { isoUnavailable } from "../../../lib/git/iso-client";
import type { GitNetwork } from "../../../lib/git/network";
import { startBodyServer, type HostileServer } from "../../support/hostile-servers";
import { CLIENTS, startFixture, track, type Fixture } from "./helpers";

// A git server that is down, overloaded or dies mid-answer is Unavailable in both clients: the
// condition reason a tenant sees (not "Error"), and a failure the controllers retry.
jest.setTimeout(60_000);

const network: GitNetwork = {
  policy: { http: "loopback", file: false },
  timeouts: { connectMs: 2_000, idleMs: 5_000, totalMs: 20_000 },
};

let fixture: Fixture;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  fixture = await startFixture();
});
afterAll(async () => {
  await Promise.all([fixture.close(), ...closers.splice(0).map(c => c())]);
});

/** A port nothing listens on: bound, then closed again. */
async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>(r => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>(r => server.close(() => r()));
  return port;
}

/** Accepts, reads the request, sends half an HTTP answer and resets the connection. */
async function resettingServer(): Promise<string> {
  const server = net.createServer(socket => {
    socket.once("data", () => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-adver");
      socket.resetAndDestroy();
    });
  });
  await new Promise<void>(r => server.listen(0, "127.0.0.1", r));
  closers.push(() => new Promise<void>(r => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function httpServer(status: number): Promise<string> {
  const server: HostileServer = await startBodyServer(status, "try again later");
  closers.push(() => server.close());
  return server.url;
}

async function openFailure(client: GitClientKind, url: string): Promise<unknown> {
  const store = track(
    new GitContentStore(
      { url, createBranch: true },
      { cacheRoot: await fixture.cacheRoot(), client, network },
    ),
  );
  return store.open().then(
    () => new Error("expected a failure"),
    (e: unknown) => e,
  );
}

describe.each(CLIENTS)("the %s client against a git server that is not there", client => {
  it("says Unavailable when the connection is refused", async () => {
    const err = await openFailure(client, `http://127.0.0.1:${await refusedPort()}/r.git`);
    expect(err).toMatchObject({ code: "Unavailable" });
    expect(failureReason(err, "Error")).toBe("Unavailable");
  });

  it.each([502, 503, 504])("says Unavailable when the server answers %i", async status => {
    const err = await openFailure(client, `${await httpServer(status)}/r.git`);
    expect(err).toMatchObject({ code: "Unavailable" });
  });

  it("says Unavailable when the connection is reset mid-answer", async () => {
    const err = await openFailure(client, `${await resettingServer()}/r.git`);
    expect(err).toMatchObject({ code: "Unavailable" });
  });

  it("still says Transport for an answer that is no git server's (404)", async () => {
    const err = await openFailure(client, `${await httpServer(404)}/r.git`);
    expect(err).toMatchObject({ code: "Transport" });
    expect(failureReason(err, "Error")).toBe("Error");
  });
});

describe("isoUnavailable", () => {
  it("follows a cause chain to a refused connection", () => {
    const refused = Object.assign(new Error("connect"), { code: "ECONNREFUSED" });
    expect(isoUnavailable(new Error("fetch failed", { cause: refused }))).toBe(true);
  });

  it("ends on a cause chain that loops, or one deeper than any library makes", () => {
    const looping = new Error("a") as Error & { cause?: unknown };
    looping.cause = looping;
    expect(isoUnavailable(looping)).toBe(false);
    let deep: unknown = Object.assign(new Error("connect"), { code: "ECONNREFUSED" });
    for (let i = 0; i < 100_000; i++) deep = { cause: deep };
    expect(isoUnavailable(deep)).toBe(false);
  });
});
