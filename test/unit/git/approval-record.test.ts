import { GitContentStore, type GitClientKind } from "../../../lib/git";
import { CLIENTS, git, pkgFiles, startFixture, track, workClone, type Fixture } from "./helpers";

jest.setTimeout(60_000);

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

async function proposed(client: GitClientKind) {
  const url = await fx.repo();
  const store = track(
    new GitContentStore(
      { url, createBranch: true, author: { name: "Tenant Pick", email: "chosen@example.com" } },
      { cacheRoot: await fx.cacheRoot(), client },
    ),
  );
  const key = { packageName: "app", workspaceName: "ws" };
  const d = await store.createNewDraft(key);
  await d.updateResources(pkgFiles("app"), "init");
  await d.closeDraft();
  await store.updateLifecycle(key, "Proposed");
  return { url, store, key };
}

describe.each(CLIENTS)("who approved, in git, with the %s client", client => {
  it("authors the publishing commit as the approver and names both in trailers", async () => {
    const { url, store, key } = await proposed(client);
    const info = await store.updateLifecycle(key, "Published", {
      proposedBy: "alice",
      approvedBy: "bob",
    });
    expect(info.publishedBy).toBe("bob");
    const dir = await workClone(fx, url);
    const log = await git(dir, "log", "-1", "--format=%an <%ae>%n%B", "app/v1");
    expect(log).toContain("bob <bob>");
    expect(log).toContain("Proposed-by: alice\nApproved-by: bob");
    expect(log).not.toContain("chosen@example.com");
  });

  it("keeps the Repository's author when admission recorded no approver", async () => {
    const { store, key } = await proposed(client);
    const info = await store.updateLifecycle(key, "Published");
    expect(info.publishedBy).toBe("chosen@example.com");
  });
});
