import { execFileSync } from "node:child_process";
import { createRepository, publishRevision } from "../support/fixtures";
import {
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  listJson,
  mergePatch,
} from "../support/kubectl";
import { files, PR, rendered, setFiles, yamlOf } from "../support/package-revisions";
import { eventually } from "../support/wait";

// A set in Plan mode (docs/package-variant-sets.md, “A plan before anything changes”): the plan
// lists a create, an upgrade with its merge conflict and a delete, and nothing changes in git or
// in the API until its id is approved with one kubectl patch.
interface Entry {
  packageVariant: string;
  repository: string;
  action: string;
  fromRevision?: string;
  toRevision?: string;
  changedFiles?: string[];
  conflicts?: string[];
}
interface PVS {
  metadata: { uid: string; generation: number };
  status?: {
    conditions?: { type: string; status: string; reason: string; message: string }[];
    plan?: {
      id: string;
      generation: number;
      summary: string;
      appliedPlan?: string;
      counts: Record<string, number>;
      entries: Entry[];
    };
  };
}

let ns: string;
const urls = new Map<string, string>();
const apply = (yaml: string) => kubectl(["apply", "-n", ns, "-f", "-"], yaml);
const setOf = () => getJson<PVS>("packagevariantset", "fleet", ns)!;
const planCondition = () => setOf().status?.conditions?.find(c => c.type === "PlanApplied");
const fleet = (revision: number | string, repos: string[], plan = "") => `
apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: fleet
spec:
  upstream: {repo: catalog, package: app, revision: ${revision}}
  targets:
    - repositories: [${repos.map(r => `{name: ${r}}`).join(", ")}]
${plan}`;
const planMode = `  plan: {mode: Plan}\n`;
const draftOf = (repo: string) => `${repo}.app.packagevariant-1`;

/** What the plan must not change: every git ref, and the set's variants and revisions. */
function snapshot() {
  const uid = setOf().metadata.uid;
  const refs = [...urls].map(([repo, url]) => [
    repo,
    execFileSync("git", ["ls-remote", url], { encoding: "utf8" }),
  ]);
  const variants = listJson<{ metadata: { name: string; generation: number }; spec: unknown }>(
    "packagevariants",
    ns,
    `config.porch.kpt.dev/packagevariantset=${uid}`,
  ).map(pv => [pv.metadata.name, pv.metadata.generation, pv.spec]);
  const revisions = listJson<PR & { metadata: { generation: number } }>("packagerevisions", ns).map(
    pr => [pr.metadata.name, pr.metadata.generation, pr.spec.lifecycle],
  );
  return { refs, variants, revisions, local: files(ns, draftOf("c1")) };
}

beforeAll(async () => {
  ns = createNamespace("e2e-plan");
  for (const repo of ["catalog", "c1", "c2", "c3"])
    urls.set(repo, await createRepository(ns, repo));
  await publishRevision(ns, "catalog", "app", 1);
});
afterAll(() => deleteNamespace(ns));

describe("a set in Plan mode", () => {
  it("refuses Plan mode on a latest upstream at admission", () => {
    const denied = apply(fleet("latest", ["c1"], planMode));
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      'spec.plan.mode Plan needs spec.upstream.revision to be a revision number (or spec.upstream.workspaceName): with "latest"',
    );
  });

  it("starts from two variants of v1, one with a local edit", async () => {
    kubectlOk(["apply", "-n", ns, "-f", "-"], fleet(1, ["c1", "c2"]));
    await Promise.all(
      ["c1", "c2"].map(r =>
        eventually(draftOf(r), () => getJson("packagerevision", draftOf(r), ns)),
      ),
    );
    await Promise.all(["c1", "c2"].map(r => rendered(ns, draftOf(r))));
    const local = { ...files(ns, draftOf("c1")) };
    local["cm.yaml"] = local["cm.yaml"].replace('revision: "1"', 'revision: "local"');
    expect(setFiles(ns, draftOf("c1"), local).code).toBe(0);
    await rendered(ns, draftOf("c1"));
    await publishRevision(ns, "catalog", "app", 2);
  });

  it("lists create, upgrade with its conflict, and delete, and changes nothing", async () => {
    const before = snapshot();
    kubectlOk(["apply", "-n", ns, "-f", "-"], fleet(2, ["c1", "c3"], planMode));
    const generation = setOf().metadata.generation;
    const plan = await eventually("the plan", () => {
      const p = setOf().status?.plan;
      return p?.generation === generation ? p : undefined;
    });
    expect(plan.summary).toBe("1 create, 1 upgrade, 1 delete");
    expect(plan.counts).toEqual({ create: 1, upgrade: 1, update: 0, delete: 1, unchanged: 0 });
    const byRepo = new Map(plan.entries.map(e => [e.repository, e]));
    expect(byRepo.get("c1")).toMatchObject({
      action: "upgrade",
      fromRevision: "1",
      toRevision: "2",
      changedFiles: ["Kptfile", "cm.yaml"],
    });
    expect(byRepo.get("c1")?.conflicts).toEqual([expect.stringContaining("data.revision")]);
    expect(byRepo.get("c3")).toMatchObject({ action: "create", toRevision: "2" });
    expect(byRepo.get("c2")).toMatchObject({ action: "delete" });
    expect(planCondition()).toMatchObject({ status: "False", reason: "AwaitingApproval" });
    expect(planCondition()?.message).toContain(`"approvedPlan":"${plan.id}"`);
    const table = kubectlOk(["get", "packagevariantset", "fleet", "-n", ns]);
    expect(table).toContain("PLAN");
    expect(table).toContain("1 create, 1 upgrade, 1 delete");

    // An approval of another plan applies nothing either.
    mergePatch("packagevariantset", "fleet", ns, {
      spec: { plan: { approvedPlan: "0123456789abcdef" } },
    });
    await eventually("stale approval reported", () =>
      planCondition()?.reason === "ApprovedPlanStale" ? true : undefined,
    );
    expect(setOf().status?.plan?.id).toBe(plan.id);
    expect(snapshot()).toEqual(before);
  });

  it("applies the approved plan with one kubectl patch", async () => {
    const id = setOf().status!.plan!.id;
    kubectlOk([
      "patch",
      "packagevariantset",
      "fleet",
      "-n",
      ns,
      "--type",
      "merge",
      "-p",
      JSON.stringify({ spec: { plan: { approvedPlan: id } } }),
    ]);
    await eventually("plan applied", () =>
      planCondition()?.reason === "Applied" ? true : undefined,
    );
    expect(setOf().status?.plan?.appliedPlan).toBe(id);
    // The PackageVariant upgrades its draft in place: the merge the plan previewed.
    await eventually("c1 upgraded to v2", () =>
      yamlOf(ns, draftOf("c1"), "Kptfile")?.upstreamLock?.git?.ref === "app/v2" ? true : undefined,
    );
    expect(yamlOf(ns, draftOf("c1"), "cm.yaml").data.revision).toBe("2");
    await eventually("c3 cloned", () => getJson("packagerevision", draftOf("c3"), ns));
    await eventually("c2's variant deleted", () =>
      getJson("packagevariant", "fleet-c2-app", ns) ? undefined : true,
    );
  });
});
