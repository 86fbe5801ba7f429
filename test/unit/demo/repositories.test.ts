import { GitContentStore, type GitCredentials, type PackageRevisionInfo } from "../../../lib/git";
import { DEMO_BLUEPRINTS } from "../../../hack/demo/packages";
import {
  createDemoRepositories,
  manifestsYaml,
  type DemoRepositories,
} from "../../../hack/demo/repositories";
import {
  filesAt,
  git,
  lsRemote,
  startFixture,
  track,
  workClone,
  type Fixture,
} from "../git/helpers";

jest.setTimeout(120_000);

const PASSWORD = "demo-Pa55word";
const summary = (r: PackageRevisionInfo) =>
  `${r.packageName} ${r.workspaceName} ${r.lifecycle} ${r.revision}`;
const tags = (refs: Map<string, string>) =>
  [...refs.keys()].filter(ref => ref.startsWith("refs/tags/") && !ref.endsWith("^{}")).sort();

async function listing(
  fx: Fixture,
  url: string,
  credentials?: GitCredentials,
): Promise<PackageRevisionInfo[]> {
  const store = track(
    new GitContentStore({ url, credentials }, { cacheRoot: await fx.cacheRoot() }),
  );
  return store.listPackageRevisions();
}

describe("createDemoRepositories on an open server", () => {
  let fx: Fixture;
  let demo: DemoRepositories;
  beforeAll(async () => {
    fx = await startFixture();
    demo = await createDemoRepositories(fx.server, { cacheRoot: await fx.cacheRoot() });
  });
  afterAll(() => fx.close());

  it("publishes base-ns v1 and v2, app v1, nested/monitoring v1 and leaves experimental a Draft", async () => {
    const revisions = await listing(fx, `${fx.server.url}/blueprints.git`);
    expect(revisions.map(summary)).toEqual([
      "app main Published -1",
      "app v1 Published 1",
      "base-ns main Published -1",
      "base-ns v1 Published 1",
      "base-ns v2 Published 2",
      "experimental v1 Draft 0",
      "nested/monitoring main Published -1",
      "nested/monitoring v1 Published 1",
    ]);
    expect(revisions.find(r => r.ref === "refs/tags/base-ns/v2")?.publishedBy).toBe(
      "platform-team@example.com",
    );
  });

  it("tags the published revisions as <package>/v<N>, with no proposed branches left", async () => {
    const refs = await lsRemote(`${fx.server.url}/blueprints.git`);
    expect(tags(refs)).toEqual([
      "refs/tags/app/v1",
      "refs/tags/base-ns/v1",
      "refs/tags/base-ns/v2",
      "refs/tags/nested/monitoring/v1",
    ]);
    expect([...refs.keys()].filter(ref => ref.startsWith("refs/heads/")).sort()).toEqual([
      "refs/heads/drafts/experimental/v1",
      "refs/heads/main",
    ]);
  });

  it.each(
    DEMO_BLUEPRINTS.flatMap(pkg =>
      pkg.revisions.map((rev, i) => [pkg.name, i + 1, rev] as const),
    ).filter(([, , rev]) => rev.lifecycle === "Published"),
  )("the tag of %s v%d holds exactly the demo files", async (name, n, rev) => {
    const files = await filesAt(
      fx,
      `${fx.server.url}/blueprints.git`,
      `refs/tags/${name}/v${n}`,
      name,
    );
    expect(files).toEqual(rev.files);
  });

  it("creates deployments with only main (the store's initial commit) and no packages", async () => {
    const url = `${fx.server.url}/deployments.git`;
    expect([...(await lsRemote(url)).keys()]).toEqual(["HEAD", "refs/heads/main"]);
    expect(await listing(fx, url)).toEqual([]);
    const work = await workClone(fx, url);
    expect(await git(work, "ls-tree", "-r", "--name-only", "origin/main")).toBe("README.md\n");
  });

  it("returns the Repository manifests, no Secret without credentials", () => {
    expect(demo.secret).toBeUndefined();
    expect(demo.manifests).toEqual(demo.repositories);
    expect(demo.repositories).toEqual([
      {
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "Repository",
        metadata: { name: "blueprints" },
        spec: expect.objectContaining({
          deployment: false,
          git: { repo: `${fx.server.url}/blueprints.git`, branch: "main" },
        }),
      },
      {
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "Repository",
        metadata: { name: "deployments", labels: { env: "dev", region: "useast1" } },
        spec: expect.objectContaining({
          deployment: true,
          git: { repo: `${fx.server.url}/deployments.git`, branch: "main" },
        }),
      },
    ]);
    expect(manifestsYaml(demo.manifests)).toMatch(
      /^apiVersion: config\.porch\.kpt\.dev\/v1alpha1\nkind: Repository\n[\s\S]*\n---\n/,
    );
  });

  it("changes nothing when run again", async () => {
    const before = await lsRemote(`${fx.server.url}/blueprints.git`);
    const again = await createDemoRepositories(fx.server, { cacheRoot: await fx.cacheRoot() });
    expect(await lsRemote(`${fx.server.url}/blueprints.git`)).toEqual(before);
    expect(again.repositories).toEqual(demo.repositories);
  });
});

describe("createDemoRepositories behind basic auth", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({ user: "demo", password: PASSWORD });
  });
  afterAll(() => fx.close());

  it("writes with the credentials and returns a basic-auth Secret the Repositories reference", async () => {
    const credentials = { username: "demo", password: PASSWORD };
    const demo = await createDemoRepositories(fx.server, {
      cacheRoot: await fx.cacheRoot(),
      credentials,
      namespace: "porch-demo",
    });
    expect(demo.secret).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "demo-git-auth", namespace: "porch-demo" },
      type: "kubernetes.io/basic-auth",
      stringData: credentials,
    });
    expect(demo.manifests[0]).toBe(demo.secret);
    for (const repo of demo.repositories) {
      expect(repo.metadata.namespace).toBe("porch-demo");
      expect(repo.spec.git?.secretRef).toEqual({ name: "demo-git-auth" });
    }
    const revisions = await listing(fx, `${fx.server.url}/blueprints.git`, {
      type: "basic",
      ...credentials,
    });
    expect(revisions.filter(r => r.revision > 0).map(summary)).toEqual([
      "app v1 Published 1",
      "base-ns v1 Published 1",
      "base-ns v2 Published 2",
      "nested/monitoring v1 Published 1",
    ]);
    await expect(listing(fx, `${fx.server.url}/blueprints.git`)).rejects.toMatchObject({
      code: "Auth",
    });
  });
});
