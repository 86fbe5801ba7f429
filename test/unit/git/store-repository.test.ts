import { GitContentStore, type GitClientKind, type GitCredentials } from "../../../lib/git";
import {
  CLIENTS,
  git,
  kptfile,
  lsRemote,
  pkgFiles,
  startFixture,
  track,
  workClone,
  writeFiles,
  type Fixture,
} from "./helpers";

jest.setTimeout(60_000);

const PASSWORD = "s3cret-Pa55word";
const TOKEN = "tok-0123456789abcdef";

let open: Fixture;
let basic: Fixture;
let bearer: Fixture;
beforeAll(async () => {
  open = await startFixture();
  basic = await startFixture({ user: "porch", password: PASSWORD });
  bearer = await startFixture({ token: TOKEN });
});
afterAll(async () => {
  await Promise.all([open.close(), basic.close(), bearer.close()]);
});

async function store(
  fx: Fixture,
  client: GitClientKind,
  url: string,
  extra: { credentials?: GitCredentials; createBranch?: boolean; branch?: string } = {},
) {
  return track(new GitContentStore({ url, ...extra }, { cacheRoot: await fx.cacheRoot(), client }));
}

describe.each(CLIENTS)("repository access with the %s client", client => {
  it.each([
    [
      "basic",
      () => basic,
      { type: "basic", username: "porch", password: PASSWORD } as GitCredentials,
    ],
    ["bearer", () => bearer, { type: "bearer", token: TOKEN } as GitCredentials],
  ])(
    "works with %s credentials and keeps wrong ones out of error messages",
    async (_kind, fixture, credentials) => {
      const fx = fixture();
      const url = await fx.repo();
      const good = await store(fx, client, url, { credentials, createBranch: true });
      const d = await good.createNewDraft({ packageName: "app", workspaceName: "w" });
      await d.updateResources(pkgFiles("app"), "init");
      expect((await d.closeDraft()).lifecycle).toBe("Draft");

      const wrong: GitCredentials =
        credentials.type === "basic"
          ? { ...credentials, password: "wrong-Pa55word-xyz" }
          : { type: "bearer", token: "wrong-token-xyz" };
      const secret = wrong.type === "basic" ? wrong.password : wrong.token;
      const bad = await store(fx, client, url, { credentials: wrong });
      const err = await bad.listPackageRevisions().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: "Auth" });
      const text = `${(err as Error).message} ${(err as Error).stack ?? ""}`;
      expect(text).not.toContain(secret);
      expect(text).not.toContain(Buffer.from(`porch:${secret}`).toString("base64"));

      const none = await store(fx, client, url);
      await expect(none.open()).rejects.toMatchObject({ code: "Auth" });
    },
  );

  it("fails on a missing branch unless createBranch, which creates it with a README commit", async () => {
    const url = await open.repo();
    await expect((await store(open, client, url)).open()).rejects.toMatchObject({
      code: "BranchMissing",
      message: `branch "main" doesn't exist in repository ${url}`,
    });
    const creating = await store(open, client, url, { createBranch: true, branch: "deploy" });
    const head = await creating.open();
    const refs = await lsRemote(url);
    expect(refs.get("refs/heads/deploy")).toBe(head);
    const work = await workClone(open, url);
    expect(await git(work, "show", "origin/deploy:README.md")).toBe("Created by porch");
    expect(await git(work, "log", "-1", "--format=%s|%an|%ae", "origin/deploy")).toBe(
      "Initial commit: Creating main branch|Package Orchestration Service|porch@kpt.dev\n",
    );
    // A second store on the same repository finds the branch.
    expect(await (await store(open, client, url, { branch: "deploy" })).open()).toBe(head);
  });

  it("reports a package whose Kptfile does not parse per package instead of failing the listing", async () => {
    const url = await open.repo();
    const work = await workClone(open, url);
    await writeFiles(work, {
      "good/Kptfile": kptfile("good"),
      "broken/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: [unclosed\n",
      "wrongkind/Kptfile": "apiVersion: v1\nkind: ConfigMap\n",
      "notapackage/readme.md": "no Kptfile here\n",
    });
    await git(work, "add", ".");
    await git(work, "commit", "-qm", "seed");
    await git(work, "push", "-q", "origin", "HEAD:main");
    const s = await store(open, client, url);
    const listed = await s.listPackageRevisions();
    expect(listed.map(r => [r.packageName, r.kptfileError === undefined ? "ok" : "error"])).toEqual(
      [
        ["broken", "error"],
        ["good", "ok"],
        ["wrongkind", "error"],
      ],
    );
    expect(listed[0].kptfileError).toMatch(/^Kptfile does not parse/);
    expect(listed[2].kptfileError).toBe('Kptfile has kind "ConfigMap", expected "Kptfile"');
    const content = await s.getPackageContent({ packageName: "broken", workspaceName: "main" });
    expect(content.upstreamLock).toBeUndefined();
    expect(Object.keys(content.files)).toEqual(["Kptfile"]);
  });
});
