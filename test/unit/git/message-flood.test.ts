// A git server that floods side-band "remote:" messages writes no pack, so no fetch limit sees
// it: the git CLI's messages are held to their first and last bytes, and past a hard limit git
// is ended with a named reason (300 MB of them took the watcher from 55 to 653 MB before).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliGitClient } from "../../../lib/git/cli-client";
import { HeadAndTail, MESSAGE_KEPT_BYTES, MESSAGE_MAX_BYTES } from "../../../lib/git/output-cap";
import { startSidebandFloodServer } from "../../support/hostile-servers";

jest.setTimeout(60_000);

describe("a git call's messages", () => {
  it("are kept as their first and last bytes, never more than the kept size", () => {
    const messages = new HeadAndTail();
    let held = 0;
    for (let i = 0; i < 300; i++) {
      messages.add(Buffer.from(`${String(i).padStart(3, "0")}${"x".repeat(65_000)}\n`));
      held = Math.max(held, messages.held);
    }
    expect(held).toBeLessThanOrEqual(MESSAGE_KEPT_BYTES);
    expect(messages.total).toBe(300 * 65_004);
    const text = messages.text();
    expect(text.startsWith("000xxx")).toBe(true);
    expect(text).toContain(`[${300 * 65_004 - MESSAGE_KEPT_BYTES} bytes left out]`);
    expect(text.endsWith("xxx\n")).toBe(true);
  });

  it("are kept whole when short", () => {
    const messages = new HeadAndTail();
    messages.add(Buffer.from("fatal: "));
    messages.add(Buffer.from("no such ref\n"));
    expect(messages.text()).toBe("fatal: no such ref\n");
  });

  it("end a fetch past the limit, named, when a server floods them", async () => {
    const flood = 64 * 1024 * 1024;
    const server = await startSidebandFloodServer(flood);
    const gitdir = await mkdtemp(join(tmpdir(), "flood-"));
    const client = new CliGitClient({
      gitdir,
      url: `${server.url}/repo.git`,
      branch: "main",
      network: {
        policy: { http: "loopback", file: false },
        timeouts: { connectMs: 5_000, idleMs: 30_000, totalMs: 120_000 },
      },
    });
    try {
      await client.init();
      const err = await client.fetch().then(
        () => new Error("expected a failure"),
        (e: Error) => e,
      );
      expect(err).toMatchObject({ code: "ContentTooLarge" });
      expect(err.message).toBe(
        `git fetch (${server.url}/repo.git) was ended: it wrote more than ${MESSAGE_MAX_BYTES} bytes of messages, the git server's "remote:" lines among them, over the limit of a git call's messages`,
      );
      // git stopped reading soon after the limit: the server could not send its flood.
      expect(server.written()).toBeLessThan(flood / 2);
    } finally {
      client.close();
      await server.close();
      await rm(gitdir, { recursive: true, force: true });
    }
  });
});
