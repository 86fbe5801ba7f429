import type { KubeObject } from "../../../bench/kube";
import { auditSnapshot, type FleetSnapshot } from "../../../faults/audit";

const repos = ["deploy-0", "deploy-1"];
const packageNames = ["ns-0", "ns-1"];

function variant(repo: string, pkg: string): KubeObject {
  return {
    kind: "PackageVariant",
    metadata: { name: `pv-${repo}-${pkg}`, uid: `uid-${repo}-${pkg}` },
    spec: { downstream: { repo, package: pkg } },
  };
}

function revision(
  pv: KubeObject,
  lifecycle: string,
  workspace: string,
  revisionNumber = 0,
): KubeObject {
  const { repo, package: pkg } = pv.spec?.downstream as { repo: string; package: string };
  return {
    kind: "PackageRevision",
    metadata: {
      name: `${repo}.${pkg}.${workspace}`,
      ownerReferences: [{ kind: "PackageVariant", name: pv.metadata.name, uid: pv.metadata.uid! }],
    },
    spec: { repository: repo, packageName: pkg, workspaceName: workspace, lifecycle },
    status: {
      revision: revisionNumber,
      observedPrrResourceVersion: "7",
      conditions: [{ type: "Rendered", status: "True" }],
    },
  };
}

const resources = (prs: KubeObject[]): KubeObject[] =>
  prs.map(pr => ({ metadata: { name: pr.metadata.name, resourceVersion: "7" } }));

/** Every target with a published v1 (tagged) and an open upgrade draft on its branch. */
function healthy(): FleetSnapshot {
  const variants = repos.flatMap(repo => packageNames.map(pkg => variant(repo, pkg)));
  const revisions = variants.flatMap(pv => [
    revision(pv, "Published", "packagevariant-1", 1),
    revision(pv, "Draft", "packagevariant-2"),
  ]);
  const refs = new Map(
    repos.map(repo => [
      repo,
      new Map(
        packageNames.flatMap(pkg => [
          [`refs/heads/drafts/${pkg}/packagevariant-2`, "a"],
          [`refs/tags/${pkg}/v1`, "b"],
        ]),
      ),
    ]),
  );
  return {
    targets: { repos, packageNames },
    variants,
    revisions,
    resources: resources(revisions),
    refs,
  };
}

const counts = (s: FleetSnapshot) => {
  const { details: _details, ...rest } = auditSnapshot(s, { openDrafts: true });
  return rest;
};
const clean = {
  variants: 4,
  duplicates: 0,
  orphanBranches: 0,
  lost: 0,
  unrendered: 0,
  missingTags: 0,
  stuckFinalizers: 0,
};

describe("the fleet audit", () => {
  it("finds nothing wrong with a healthy fleet", () => {
    expect(counts(healthy())).toEqual(clean);
  });

  it("counts a draft branch no revision stands for as an orphan", () => {
    const s = healthy();
    s.refs.get("deploy-0")!.set("refs/heads/drafts/ns-9/packagevariant-1", "c");
    expect(counts(s)).toEqual({ ...clean, orphanBranches: 1 });
  });

  it("counts a second open draft of one variant, and its second branch, as duplicates", () => {
    const s = healthy();
    const second = revision(s.variants[0], "Draft", "packagevariant-3");
    s.revisions.push(second);
    s.resources.push(...resources([second]));
    s.refs.get("deploy-0")!.set("refs/heads/drafts/ns-0/packagevariant-3", "c");
    expect(counts(s)).toEqual({ ...clean, duplicates: 2 });
  });

  it("counts a target without its variant, and a draft whose branch is gone, as lost", () => {
    const s = healthy();
    const gone = s.variants.pop()!;
    s.revisions = s.revisions.filter(pr => !pr.metadata.name.startsWith("deploy-1.ns-1."));
    s.refs.get("deploy-1")!.delete("refs/heads/drafts/ns-1/packagevariant-2");
    s.refs.get("deploy-0")!.delete("refs/heads/drafts/ns-0/packagevariant-2");
    expect(gone.metadata.name).toBe("pv-deploy-1-ns-1");
    expect(counts(s)).toEqual({ ...clean, variants: 3, lost: 2 });
  });

  it("counts a draft rendered at older resources as unrendered", () => {
    const s = healthy();
    s.resources[1].metadata.resourceVersion = "8";
    expect(counts(s)).toEqual({ ...clean, unrendered: 1 });
  });

  it("counts a published revision without its tag, and an object still deleting", () => {
    const s = healthy();
    s.refs.get("deploy-1")!.delete("refs/tags/ns-0/v1");
    s.variants[0].metadata.deletionTimestamp = "2026-11-27T00:00:00Z";
    expect(counts(s)).toEqual({ ...clean, missingTags: 1, stuckFinalizers: 1 });
  });

  it("counts a tag that moved since the publish", () => {
    const s = healthy();
    s.tagsBefore = new Map([["deploy-0", new Map([["refs/tags/ns-1/v1", "b"]])]]);
    expect(counts(s)).toEqual(clean);
    s.refs.get("deploy-0")!.set("refs/tags/ns-1/v1", "z");
    expect(counts(s)).toEqual({ ...clean, missingTags: 1 });
  });
});
