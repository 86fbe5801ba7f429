import { GitContentStore, type GitClientKind, type GitCredentials } from "../../../lib/git";
import type { GitNetwork } from "../../../lib/git/network";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import {
  startBodyServer,
  startRedirectServer,
  startTrickleServer,
  type HostileServer,
} from "../../support/hostile-servers";
import { CLIENTS, startFixture, track, type Fixture } from "./helpers";

// Both git clients against local listeners that misbehave like hostile remotes.
jest.setTimeout(60_000);

const MARKER = "MARKER-instance-identity-7f3a9c";
const CREDENTIALS: GitCredentials = { type: "basic", username: "porch", password: "pw-4d1e8b" };

const network = (extra: Partial<GitNetwork> = {}): GitNetwork => ({
  policy: { http: "loopback", file: false },
  timeouts: { connectMs: 2_000, idleMs: 500, totalMs: 20_000 },
  ...extra,
});

let fixture: Fixture;
const servers: HostileServer[] = [];
beforeAll(async () => {
  fixture = await startFixture();
});
afterAll(async () => {
  await Promise.all([fixture.close(), ...servers.splice(0).map(s => s.close())]);
});

async function started<T extends HostileServer>(server: Promise<T>): Promise<T> {
  const s = await server;
  servers.push(s);
  return s;
}

async function store(
  client: GitClientKind,
  url: string,
  net: GitNetwork = network(),
  credentials?: GitCredentials,
) {
  return track(
    new GitContentStore(
      { url, credentials, createBranch: true },
      { cacheRoot: await fixture.cacheRoot(), client, network: net },
    ),
  );
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => new Error("expected a failure"),
    (e: Error) => e,
  );

describe.each(CLIENTS)("the %s client against hostile remotes", client => {
  it("ends with a Timeout when the server accepts and trickles, and releases the cache", async () => {
    // One byte a second, at most 4 per connection: slower than the 500 ms idle timeout.
    const trickle = await started(startTrickleServer({ intervalMs: 1_000, maxBytes: 4 }));
    // The CLI's idle check is curl's low-speed rule, in whole seconds: 1 byte/s is below it.
    const s = await store(
      client,
      `${trickle.url}/repo.git`,
      network({ timeouts: { connectMs: 2_000, idleMs: 500, totalMs: 3_000 } }),
    );
    const first = await failure(s.open());
    expect(first).toMatchObject({ code: "Timeout" });
    expect(first.message).toContain(`git server ${trickle.url}/repo.git timed out`);
    // The lock on the cache was released: the next operation runs (and times out) too.
    await expect(s.listPackageRevisions()).rejects.toMatchObject({ code: "Timeout" });
    // And another repository syncs.
    const good = await store(client, await fixture.repo());
    await expect(good.open()).resolves.toMatch(/^[0-9a-f]{40}$/);
  });

  it("cuts a server that is never idle but answers below the low-speed limit", async () => {
    // Ten bytes a second of an answer's body for as long as the client listens: never quiet for
    // the 5 s idle timeout, far below 1 KiB/s. Without the low-speed rule the 30 s total would
    // end it.
    const trickle = await started(
      startTrickleServer({ intervalMs: 100, maxBytes: 1_000_000, inBody: true }),
    );
    const s = await store(
      client,
      `${trickle.url}/repo.git`,
      network({
        timeouts: {
          connectMs: 2_000,
          idleMs: 5_000,
          totalMs: 30_000,
          lowSpeedLimit: 1024,
          lowSpeedTimeMs: 1_000,
        },
      }),
    );
    const err = await failure(s.open());
    expect(err).toMatchObject({ code: "Timeout" });
    expect(err.message).toContain(`git server ${trickle.url}/repo.git timed out`);
    expect(err.message).toMatch(
      client === "isomorphic"
        ? /less than 1024 bytes\/s for 1000 ms \(PORCH_PEPR_GIT_LOW_SPEED_LIMIT\)/
        : /Operation too slow/,
    );
    expect(err.message).not.toContain("took longer than");
  });

  it.each([200, 404, 500])(
    "never quotes the body of a non-git answer (HTTP %i) in its error",
    async status => {
      const body = await started(startBodyServer(status, `${MARKER}\n{"token":"${MARKER}"}\n`));
      const err = await failure((await store(client, `${body.url}/repo.git`)).open());
      expect(err).toMatchObject({ code: expect.stringMatching(/Transport|Auth/) });
      expect(`${err.message}\n${err.stack ?? ""}`).not.toContain(MARKER);
      expect(body.seen.length).toBeGreaterThan(0);
    },
  );

  if (client === "isomorphic")
    it("stops reading an answer larger than the per-fetch limit", async () => {
      // A ref advertisement that never ends: 2 MiB against a 1 MiB limit.
      const big = await started(startBodyServer(200, "0".repeat(2 * 1024 * 1024)));
      const s = await store(
        client,
        `${big.url}/repo.git`,
        network({ limits: { ...DEFAULT_CONTENT_LIMITS, maxFetchBytes: 1 << 20 } }),
      );
      await expect(s.open()).rejects.toMatchObject({
        code: "ContentTooLarge",
        message: `git server ${big.url}/repo.git answered with more than the fetch may take: over the per-fetch limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_FETCH_BYTES)`,
      });
    });

  it("follows no redirect, so neither the request nor the credentials reach another host", async () => {
    const target = await started(startBodyServer(200, MARKER, "127.0.0.2"));
    const redirect = await started(startRedirectServer(target.url));
    const s = await store(client, `${redirect.url}/repo.git`, network(), CREDENTIALS);
    const err = await failure(s.open());
    expect(err.message).not.toContain(MARKER);
    expect(redirect.seen[0]?.authorization).toMatch(/^Basic /);
    expect(target.seen).toEqual([]);
  });

  it("connects to the address it checked, and refuses a name that resolves to a metadata address", async () => {
    const url = await fixture.repo();
    const named = url.replace("127.0.0.1", "git.porch.test");
    const resolveTo = (address: string) => ({
      policy: { http: "any" as const, file: false },
      resolve: () => Promise.resolve([{ address, family: 4 }]),
    });
    const good = await store(client, named, network(resolveTo("127.0.0.1")));
    await expect(good.open()).resolves.toMatch(/^[0-9a-f]{40}$/);
    const bad = await store(client, named, network(resolveTo("169.254.169.254")));
    await expect(bad.open()).rejects.toMatchObject({
      code: "URLNotAllowed",
      message: `git URL ${named} refused: the git host resolves to 169.254.169.254, a link-local or cloud metadata address, which is never allowed`,
    });
  });

  it("refuses credentials in the URL before any request", async () => {
    const body = await started(startBodyServer(200, MARKER));
    const url = `${body.url.replace("http://", "http://porch:pw-in-url@")}/repo.git`;
    const err = await failure(store(client, url).then(s => s.open()));
    expect(err).toMatchObject({
      code: "URLNotAllowed",
      message: `git URL ${body.url}/repo.git refused: credentials in the URL are not allowed; use secretRef`,
    });
    expect(body.seen).toEqual([]);
  });
});
