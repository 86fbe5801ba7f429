import type { PackageRevision, PackageVariantSpec } from "../../../crd-types";
import { selectUpstream } from "../../../lib/packages/upstream";
import {
  decideMutations,
  planPackageVariant,
  type CheckMutationsStep,
  type DownstreamStep,
} from "../../../lib/package-variant";
import { PV_UID, revision, upstreamRevision, variant } from "./fixtures";

const upstreams = [upstreamRevision(1), upstreamRevision(2)];

function plan(
  downstreams: PackageRevision[],
  spec: PackageVariantSpec = {},
  upstream = upstreamRevision(2),
) {
  return planPackageVariant({
    pv: variant(spec),
    upstream,
    revisions: [...upstreams, ...downstreams],
  });
}
const summary = (step: DownstreamStep) => [step.state, step.kind, step.target];

describe("planPackageVariant: no downstream", () => {
  it("clones the upstream into a v1alpha2 Draft owned by the PackageVariant", () => {
    const result = plan([], { labels: { env: "prod" }, annotations: { team: "a" } });
    expect(result.changes).toEqual([]);
    expect(result.steps).toEqual([
      {
        state: "NO_DOWNSTREAM",
        kind: "createClone",
        target: "edge01.nginx.packagevariant-1",
        create: {
          apiVersion: "porch.kpt.dev/v1alpha2",
          kind: "PackageRevision",
          metadata: {
            name: "edge01.nginx.packagevariant-1",
            namespace: "default",
            ownerReferences: [
              {
                apiVersion: "config.porch.kpt.dev/v1alpha1",
                kind: "PackageVariant",
                name: "my-pv",
                uid: PV_UID,
                controller: true,
              },
            ],
            labels: { env: "prod" },
            annotations: { team: "a" },
          },
          spec: {
            packageName: "nginx",
            repository: "edge01",
            workspaceName: "packagevariant-1",
            lifecycle: "Draft",
            source: { cloneFrom: { upstreamRef: { name: "blueprints.nginx.v2" } } },
          },
        },
      },
    ]);
  });

  it("numbers the workspace after existing ones of that package, owned or not", () => {
    const other = revision({
      ws: "packagevariant-4",
      owner: false,
      lifecycle: "Published",
      revision: 1,
    });
    expect(plan([other]).steps.map(summary)).toEqual([
      ["NO_DOWNSTREAM", "createClone", "edge01.nginx.packagevariant-5"],
    ]);
  });

  it("reports a missing upstream as stalled and plans nothing", () => {
    const result = planPackageVariant({ pv: variant(), upstream: undefined, revisions: upstreams });
    expect(result).toEqual({
      stalled: "could not find upstream package revision 'nginx/2' in repo 'blueprints'",
      changes: [],
      notes: [],
      steps: [],
    });
  });
});

describe("planPackageVariant: metadata of upgrade and edit drafts", () => {
  // The published downstream as people and the operator left it.
  const published = (lockRef: string) =>
    revision({
      ws: "packagevariant-1",
      lifecycle: "Published",
      revision: 1,
      lockRef,
      labels: {
        env: "staging",
        team: "edge",
        "porch.kpt.dev/latest-revision": "true",
        "porch.kpt.dev/repository": "edge01",
        "config.porch.kpt.dev/packagevariant": "my-pv",
      },
      annotations: {
        owner: "alice",
        "porch.kpt.dev/proposed-by": "alice",
        "porch.kpt.dev/approved-by": "bob",
        "porch.kpt.dev/repository-uid": "repo-uid",
        "kubectl.kubernetes.io/last-applied-configuration": "{}",
        // The variant's policy when this revision was made: a new draft takes the variant's now.
        "approval.nephio.org/policy": "always",
        "approval.nephio.org/delay": "1m",
        "porch.kpt.dev/approval-policy-granted-by": "bob",
      },
    });
  const own = { labels: { env: "prod" }, annotations: { note: "from the variant" } };
  const expected = {
    labels: { env: "prod", team: "edge" },
    annotations: { owner: "alice", note: "from the variant" },
  };

  it("an upgrade draft carries the downstream's labels and annotations, the variant's winning", () => {
    const [step] = plan([published("nginx/v1")], own).steps;
    if (step.kind !== "createUpgrade") throw new Error(`unexpected step ${step.kind}`);
    expect(step.create.metadata?.labels).toEqual(expected.labels);
    expect(step.create.metadata?.annotations).toEqual(expected.annotations);
  });

  it("an edit draft carries them too", () => {
    const [step] = plan([published("nginx/v2")], own).steps as CheckMutationsStep[];
    expect(step.editDraft?.metadata?.labels).toEqual(expected.labels);
    expect(step.editDraft?.metadata?.annotations).toEqual(expected.annotations);
  });

  it("a clone has only the variant's: there is no revision to carry from", () => {
    const [step] = plan([], own).steps;
    if (step.kind !== "createClone") throw new Error(`unexpected step ${step.kind}`);
    expect(step.create.metadata?.labels).toEqual(own.labels);
    expect(step.create.metadata?.annotations).toEqual(own.annotations);
  });
});

describe("planPackageVariant: upstream changed", () => {
  const published = revision({
    ws: "packagevariant-1",
    lifecycle: "Published",
    revision: 1,
    lockRef: "nginx/v1",
  });

  it("creates an upgrade draft from the published downstream", () => {
    const [step] = plan([published], { labels: { env: "prod" } }).steps;
    expect(summary(step)).toEqual([
      "UPSTREAM_CHANGED",
      "createUpgrade",
      "edge01.nginx.packagevariant-2",
    ]);
    if (step.kind !== "createUpgrade") throw new Error("unexpected step");
    expect(step.create.spec).toEqual({
      packageName: "nginx",
      repository: "edge01",
      workspaceName: "packagevariant-2",
      lifecycle: "Draft",
      source: {
        upgrade: {
          oldUpstream: { name: "blueprints.nginx.v1" },
          newUpstream: { name: "blueprints.nginx.v2" },
          currentPackage: { name: "edge01.nginx.packagevariant-1" },
          strategy: "resource-merge",
        },
      },
    });
    expect(step.create.metadata?.labels).toEqual({ env: "prod" });
    expect(step.create.metadata?.ownerReferences?.[0].uid).toBe(PV_UID);
  });

  it("fails when the old upstream revision no longer exists", () => {
    const gone = revision({
      ws: "packagevariant-1",
      lifecycle: "Published",
      revision: 1,
      lockRef: "nginx/v7",
    });
    expect(plan([gone]).steps).toMatchObject([
      {
        state: "UPSTREAM_CHANGED",
        kind: "error",
        message: "could not find upstream package revision 'nginx/7' in repo 'blueprints'",
      },
    ]);
  });

  it("upgrades a Draft in place when the upstream it was made from is known", () => {
    const draft = revision({
      ws: "packagevariant-2",
      lockRef: "nginx/v1",
      source: true,
      creationSource: true,
    });
    const [step] = plan([published, draft]).steps;
    expect(summary(step)).toEqual([
      "UPSTREAM_CHANGED",
      "upgradeInPlace",
      "edge01.nginx.packagevariant-2",
    ]);
    if (step.kind !== "upgradeInPlace") throw new Error("unexpected step");
    expect([step.oldUpstream.metadata?.name, step.newUpstream.metadata?.name]).toEqual([
      "blueprints.nginx.v1",
      "blueprints.nginx.v2",
    ]);
  });

  it.each([
    [
      "a Proposed downstream (under review)",
      revision({ ws: "packagevariant-2", lifecycle: "Proposed", lockRef: "nginx/v1" }),
      'cannot update upstream of downstream "edge01.nginx.packagevariant-2" when it is not published',
    ],
    [
      "a Draft whose base revision is gone",
      revision({ ws: "packagevariant-2", lockRef: "nginx/v9" }),
      "cannot update upstream of downstream \"edge01.nginx.packagevariant-2\" when it is not published: could not find upstream package revision 'nginx/9' in repo 'blueprints'",
    ],
    [
      "a Draft cloned from a draft upstream that is gone",
      revision({ ws: "packagevariant-2", lockRef: "drafts/nginx/old" }),
      "cannot update upstream of downstream \"edge01.nginx.packagevariant-2\" when it is not published: could not find upstream package revision 'nginx/workspace old' in repo 'blueprints'",
    ],
  ])("refuses to update %s, with the reference's message", (_, downstream, message) => {
    expect(plan([downstream]).steps).toEqual([
      {
        state: "UPSTREAM_CHANGED",
        kind: "error",
        downstream,
        target: downstream.metadata?.name,
        message,
      },
    ]);
  });

  it("follows `latest`: a newly published upstream revision makes the downstream stale", () => {
    const all = [...upstreams, upstreamRevision(3), published];
    const pv = variant({ upstream: { repo: "blueprints", package: "nginx", revision: "latest" } });
    const upstream = selectUpstream(all, pv.spec!.upstream!);
    const [step] = planPackageVariant({ pv, upstream, revisions: all }).steps;
    expect(step.kind === "createUpgrade" && step.create.spec?.source?.upgrade?.newUpstream).toEqual(
      { name: "blueprints.nginx.v3" },
    );
  });
});

describe("planPackageVariant: mutations", () => {
  const published = revision({
    ws: "packagevariant-1",
    lifecycle: "Published",
    revision: 1,
    lockRef: "nginx/v2",
  });

  it("checks a published downstream, with an edit draft ready in case the mutations change it", () => {
    const [step] = plan([published]).steps as CheckMutationsStep[];
    expect(summary(step)).toEqual([
      "CHECK_MUTATIONS",
      "checkMutations",
      "edge01.nginx.packagevariant-1",
    ]);
    expect(step.editDraft?.spec?.source).toEqual({
      copyFrom: { name: "edge01.nginx.packagevariant-1" },
    });
    expect(step.editDraft?.metadata?.name).toBe("edge01.nginx.packagevariant-2");
    expect(decideMutations(step, false)).toEqual({
      state: "UP_TO_DATE",
      target: "edge01.nginx.packagevariant-1",
    });
    expect(decideMutations(step, true)).toEqual({
      state: "MUTATIONS_CHANGED",
      createEditDraft: step.editDraft,
      target: "edge01.nginx.packagevariant-2",
    });
  });

  it.each(["Draft", "Proposed"] as const)("updates a %s downstream in place", lifecycle => {
    const draft = revision({ ws: "packagevariant-2", lifecycle, lockRef: "nginx/v2" });
    const [step] = plan([published, draft]).steps as CheckMutationsStep[];
    expect(step.editDraft).toBeUndefined();
    expect(decideMutations(step, true)).toEqual({
      state: "MUTATIONS_CHANGED",
      writeTo: "edge01.nginx.packagevariant-2",
      target: "edge01.nginx.packagevariant-2",
    });
    expect(decideMutations(step, false).state).toBe("UP_TO_DATE");
  });

  it("treats a downstream without an upstream lock as up to date (the reference's choice)", () => {
    const draft = revision({ ws: "manual" });
    expect(plan([draft]).steps.map(summary)).toEqual([
      ["CHECK_MUTATIONS", "checkMutations", "edge01.nginx.manual"],
    ]);
  });
});

describe("planPackageVariant: which revisions are the downstream", () => {
  it("takes every owned Draft/Proposed over published ones", () => {
    const revisions = [
      revision({
        ws: "packagevariant-1",
        lifecycle: "Published",
        revision: 1,
        lockRef: "nginx/v2",
      }),
      revision({ ws: "packagevariant-2", lockRef: "nginx/v2" }),
      revision({ ws: "packagevariant-3", lifecycle: "Proposed", lockRef: "nginx/v2" }),
    ];
    expect(plan(revisions).steps.map(step => step.target)).toEqual([
      "edge01.nginx.packagevariant-2",
      "edge01.nginx.packagevariant-3",
    ]);
  });

  it("takes the published one with the highest revision when there is no draft", () => {
    const revisions = [
      revision({
        ws: "packagevariant-3",
        lifecycle: "Published",
        revision: 2,
        lockRef: "nginx/v2",
      }),
      revision({
        ws: "packagevariant-1",
        lifecycle: "Published",
        revision: 3,
        lockRef: "nginx/v2",
      }),
      revision({
        ws: "packagevariant-2",
        lifecycle: "Published",
        revision: 1,
        lockRef: "nginx/v2",
      }),
    ];
    expect(plan(revisions).steps.map(step => step.target)).toEqual([
      "edge01.nginx.packagevariant-1",
    ]);
  });

  it("waits while a downstream is being published instead of upgrading an older one", () => {
    // spec says Published, git has not numbered it yet: an older published revision with a stale
    // lock must not be taken for the downstream (that created a needless upgrade draft).
    const revisions = [
      revision({
        ws: "packagevariant-1",
        lifecycle: "Published",
        revision: 1,
        lockRef: "nginx/v1",
      }),
      revision({ ws: "packagevariant-2", lifecycle: "Published", lockRef: "nginx/v2" }),
    ];
    expect(plan(revisions).steps).toEqual([
      expect.objectContaining({
        state: "SOURCE_PENDING",
        kind: "wait",
        target: "edge01.nginx.packagevariant-2",
        message: 'waiting for PackageRevision "edge01.nginx.packagevariant-2" to be published',
      }),
    ]);
  });

  it("ignores revisions being deleted and revisions it does not own", () => {
    const revisions = [
      revision({ ws: "packagevariant-1", deleting: true }),
      revision({ ws: "packagevariant-2", owner: "someone-else" }),
    ];
    expect(plan(revisions).steps.map(summary)).toEqual([
      ["NO_DOWNSTREAM", "createClone", "edge01.nginx.packagevariant-3"],
    ]);
  });

  it("restores a DeletionProposed downstream to Published, then treats it as published", () => {
    const proposed = revision({
      ws: "packagevariant-1",
      lifecycle: "DeletionProposed",
      revision: 1,
      lockRef: "nginx/v1",
    });
    const result = plan([proposed]);
    expect(result.changes).toEqual([
      {
        action: "update",
        name: "edge01.nginx.packagevariant-1",
        revision: proposed,
        reasons: ["restore"],
        set: { lifecycle: "Published" },
      },
    ]);
    expect(result.steps.map(summary)).toEqual([
      ["UPSTREAM_CHANGED", "createUpgrade", "edge01.nginx.packagevariant-2"],
    ]);
  });

  it("waits for a draft whose source has not run yet, naming a failure", () => {
    const pending = revision({ ws: "packagevariant-1", source: true });
    expect(plan([pending]).steps).toMatchObject([
      {
        state: "SOURCE_PENDING",
        kind: "wait",
        message:
          'waiting for PackageRevision "edge01.nginx.packagevariant-1" to be created from its source',
      },
    ]);
    const failed = {
      ...pending,
      status: {
        conditions: [
          {
            type: "Ready",
            status: "False" as const,
            reason: "Failed",
            message: "clone: boom",
            lastTransitionTime: "",
          },
        ],
      },
    };
    expect(plan([failed]).steps).toMatchObject([
      { kind: "wait", message: expect.stringMatching(/from its source: clone: boom$/) },
    ]);
  });
});

describe("planPackageVariant: adoption", () => {
  const existing = revision({
    ws: "v1",
    lifecycle: "Published",
    revision: 1,
    lockRef: "nginx/v2",
    owner: false,
    labels: { keep: "me", env: "dev" },
  });

  it("adoptNone ignores an existing matching revision and clones", () => {
    const result = plan([existing], { adoptionPolicy: "adoptNone", labels: { env: "prod" } });
    expect(result.changes).toEqual([]);
    expect(result.steps.map(summary)).toEqual([
      ["NO_DOWNSTREAM", "createClone", "edge01.nginx.packagevariant-1"],
    ]);
  });

  it("adoptExisting takes ownership, merges labels and annotations, and manages it", () => {
    const result = plan([existing], {
      adoptionPolicy: "adoptExisting",
      labels: { env: "prod" },
      annotations: { a: "b" },
    });
    expect(result.changes).toEqual([
      {
        action: "update",
        name: "edge01.nginx.v1",
        revision: existing,
        reasons: ["adopt"],
        set: {
          ownerReferences: [
            {
              apiVersion: "config.porch.kpt.dev/v1alpha1",
              kind: "PackageVariant",
              name: "my-pv",
              uid: PV_UID,
              controller: true,
            },
          ],
          labels: { keep: "me", env: "prod" },
          annotations: { a: "b" },
        },
      },
    ]);
    expect(result.steps.map(summary)).toEqual([
      ["CHECK_MUTATIONS", "checkMutations", "edge01.nginx.v1"],
    ]);
  });

  it("adoptExisting gives an adopted revision the approval policy but never a grant", () => {
    const granted = {
      "approval.nephio.org/policy": "always",
      "porch.kpt.dev/approval-policy-granted-by": "approver",
    };
    const result = plan([existing], { adoptionPolicy: "adoptExisting", annotations: granted });
    expect(result.changes[0]).toMatchObject({
      set: { annotations: { "approval.nephio.org/policy": "always" } },
    });
    const set = result.changes[0]?.action === "update" ? result.changes[0].set : undefined;
    expect(set?.annotations).not.toHaveProperty(["porch.kpt.dev/approval-policy-granted-by"]);
  });

  it("adoptExisting leaves alone a revision another object controls", () => {
    const controlled = revision({
      ws: "v1",
      owner: false,
      controller: { kind: "PackageVariant", name: "other", uid: "other-uid" },
    });
    const result = plan([controlled], { adoptionPolicy: "adoptExisting" });
    expect(result.changes).toEqual([]);
    expect(result.notes).toEqual([
      'not adopting PackageRevision "edge01.nginx.v1": it is controlled by PackageVariant "other"',
    ]);
    expect(result.steps.map(summary)).toEqual([
      ["NO_DOWNSTREAM", "createClone", "edge01.nginx.packagevariant-1"],
    ]);
  });

  it("adoptExisting does not adopt revisions of other packages", () => {
    const other = revision({ ws: "v1", pkg: "redis", owner: false });
    expect(plan([other], { adoptionPolicy: "adoptExisting" }).changes).toEqual([]);
  });
});

describe("planPackageVariant: stale downstreams (repository or package changed)", () => {
  const old = (lifecycle: "Draft" | "Proposed" | "Published" | "DeletionProposed") =>
    revision({
      repo: "edge00",
      ws: `packagevariant-${lifecycle}`.toLowerCase(),
      lifecycle,
      revision: 1,
    });

  it.each([
    ["delete", "Draft", { action: "delete" }],
    ["delete", "Proposed", { action: "delete" }],
    ["delete", "Published", { action: "update", set: { lifecycle: "DeletionProposed" } }],
    ["delete", "DeletionProposed", undefined],
    ["orphan", "Draft", { action: "update", set: { ownerReferences: [] } }],
    ["orphan", "Published", { action: "update", set: { ownerReferences: [] } }],
  ] as const)("deletionPolicy %s, %s → %j", (policy, lifecycle, expected) => {
    const result = plan([old(lifecycle)], { deletionPolicy: policy });
    expect(result.changes).toEqual(
      expected ? [expect.objectContaining({ ...expected, reasons: ["stale"] })] : [],
    );
    // The new downstream is created regardless.
    expect(result.steps.map(step => step.kind)).toEqual(["createClone"]);
  });
});
