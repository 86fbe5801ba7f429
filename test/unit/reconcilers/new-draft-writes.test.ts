import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { condition } from "../../../capabilities/package-revision/status";
import {
  PackageRevisionKind,
  PackageRevisionResourcesKind,
  RepositoryKind,
} from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { cloneOfUpstream, configMap, current, labellingKptfile, NS } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/** The subjects of the commits on `ref` of the local repository `url`, newest first. */
function commitsOn(url: string, ref: string): string[] {
  const out = execFileSync("git", ["log", "--format=%s", ref], {
    cwd: fileURLToPath(url),
    stdio: ["ignore", "pipe", "ignore"],
  });
  return out.toString().trim().split("\n");
}

/**
 * A new draft costs one push and at most two status writes: the source's files are rendered
 * before they are committed, so git, the PackageRevisionResources and the status get the
 * rendered package once instead of the source's files first and the render's second.
 */
describe("a new draft", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("is rendered, committed in one push and Ready after one reconcile", async () => {
    const pr = await cloneOfUpstream(h, {
      Kptfile: labellingKptfile("base"),
      "cm.yaml": configMap("a"),
    });
    const calls = h.callsFrom();

    await expect(reconcilePackageRevision(`${NS}/${pr.metadata?.name}`, h.ctx)).resolves.toBe(
      undefined,
    );

    const repo = await current(h.cluster, RepositoryKind, {
      metadata: { name: "repo", namespace: NS },
    });
    const drafts = commitsOn(repo.spec?.git?.repo ?? "", "refs/heads/drafts/app/v1");
    expect(
      drafts.filter(s => s.endsWith(pr.metadata?.name ?? "") || s.startsWith("render")),
    ).toEqual([`clone ${pr.metadata?.name}`]);
    const prr = await current(h.cluster, PackageRevisionResourcesKind, pr);
    expect(prr.spec?.resources?.["cm.yaml"]).toContain("env: dev");
    expect(prr.status?.renderStatus?.error).toBeUndefined();
    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(after.status?.creationSource).toBe("clone");
    expect(after.status?.observedPrrResourceVersion).toBe(prr.metadata?.resourceVersion);
    expect(condition(after, "Rendered")).toMatchObject({ status: "True", reason: "Rendered" });
    expect(condition(after, "Ready")).toMatchObject({ status: "True", reason: "Ready" });
    const statusWrites = calls().filter(
      c => c.startsWith("apply PackageRevision ") && c.endsWith("(status)"),
    );
    // One apply states the source's outcome, Rendered and Ready together.
    expect(statusWrites).toHaveLength(1);
    // Nothing left: the next reconcile reads and writes nothing more.
    const again = h.callsFrom();
    await reconcilePackageRevision(`${NS}/${pr.metadata?.name}`, h.ctx);
    expect(again().filter(c => !c.startsWith("get ") && !c.startsWith("list "))).toEqual([]);
  });

  it("waits for a render slot before it runs, writing nothing", async () => {
    const pr = await cloneOfUpstream(h, {
      Kptfile: labellingKptfile("base"),
      "cm.yaml": configMap("a"),
    });
    expect(h.slots.take("elsewhere")).toBe(true);
    const calls = h.callsFrom();

    await expect(reconcilePackageRevision(`${NS}/${pr.metadata?.name}`, h.ctx)).resolves.toEqual({
      requeueAfterMs: h.ctx.render.requeueDelayMs,
    });

    expect(calls().filter(c => !c.startsWith("get ") && !c.startsWith("list "))).toEqual([
      `patch PackageRevision ${NS}/${pr.metadata?.name}`,
    ]);
    const repo = await current(h.cluster, RepositoryKind, {
      metadata: { name: "repo", namespace: NS },
    });
    expect(() => commitsOn(repo.spec?.git?.repo ?? "", "refs/heads/drafts/app/v1")).toThrow();
    expect(h.slots.taken).toBe(1);
  });

  it("fetches its source holding no render slot: the slot is taken around the render only", async () => {
    const pr = await cloneOfUpstream(h, {
      Kptfile: labellingKptfile("base"),
      "cm.yaml": configMap("a"),
    });
    // Every read of a repository's content (the upstream's among them) notes the slots taken.
    const seen: string[] = [];
    const named = h.ctx.stores.named.bind(h.ctx.stores);
    jest.spyOn(h.ctx.stores, "named").mockImplementation(async (...args) => {
      seen.push(`read with ${h.slots.taken} taken`);
      return named(...args);
    });

    await reconcilePackageRevision(`${NS}/${pr.metadata?.name}`, h.ctx);

    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(["read with 0 taken"]));
    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(condition(after, "Rendered")).toMatchObject({ status: "True", reason: "Rendered" });
    expect(h.slots.taken).toBe(0);
  });

  it("keeps the source's files in git when the render fails, and says why", async () => {
    const { metadata } = await cloneOfUpstream(h, {
      Kptfile: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\npipeline:\n  mutators:\n    - image: no-such-function:v1\n`,
      "cm.yaml": configMap("a"),
    });
    const name = metadata?.name ?? "";

    await reconcilePackageRevision(`${NS}/${name}`, h.ctx);

    const pr = await current(h.cluster, PackageRevisionKind, { metadata: { name, namespace: NS } });
    expect(pr.status?.creationSource).toBe("clone");
    expect(condition(pr, "Rendered")).toMatchObject({ status: "False" });
    expect(condition(pr, "Rendered")?.message).toContain("no-such-function");
    const prr = await current(h.cluster, PackageRevisionResourcesKind, pr);
    // Git and the PackageRevisionResources hold the clone as the source made it.
    const store = await h.ctx.stores.named(NS, "repo");
    const inGit = await store!.store.getPackageContent({ packageName: "app", workspaceName: "v1" });
    expect(prr.spec?.resources).toEqual(inGit.files);
    expect(inGit.files.Kptfile).toContain("no-such-function");
    expect(prr.status?.renderStatus?.error).toContain("no-such-function");
    expect(pr.status?.observedPrrResourceVersion).toBe(prr.metadata?.resourceVersion);
  });
});
