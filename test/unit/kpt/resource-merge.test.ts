// kpt resource-merge behaviour (research/field.md §5 table) on in-memory packages, plus the
// conflicts we report where kpt resolves silently.
import { upgradePackage } from "../../../lib/kpt/upgrade";
import type { ConflictReason, UpgradeResult } from "../../../lib/kpt/types";
import { applyEdits, at, clonedV1, type Edit, LOCK_V2, objects, upstreamV1 } from "./fixtures";
import { resourceMergeRows } from "./resource-merge-scenarios";

function upgrade(local: Edit[], upstream: Edit[]): UpgradeResult {
  return upgradePackage(
    {
      original: upstreamV1(),
      updated: applyEdits(upstreamV1(), upstream),
      local: applyEdits(clonedV1(), local),
    },
    "resource-merge",
    LOCK_V2,
  );
}

function summary(result: UpgradeResult): string[] {
  return result.conflicts.map(c => `${c.reason} ${c.field ?? ""}`.trim());
}

describe("resource-merge (field.md §5 rules)", () => {
  it.each(resourceMergeRows.map(row => [row.name, row] as const))("%s", (_, row) => {
    const result = upgrade(row.local, row.upstream);
    for (const expectation of row.expect) {
      expect(at(result.files, expectation.file, expectation.path, expectation.index)).toEqual(
        expectation.value,
      );
    }
    for (const path of row.absent ?? []) expect(result.files).not.toHaveProperty([path]);
    expect(summary(result)).toEqual(row.conflicts);
  });

  it("non-KRM files follow kpt: upstream-only change applied, locally deleted file restored", () => {
    const result = upgrade(
      [["README.md", null]],
      [
        ["README.md", "# v1", "# v2"],
        ["docs/NOTES.txt", "new\n"],
      ],
    );
    expect(result.files["README.md"]).toBe("# v2\n");
    expect(result.files["docs/NOTES.txt"]).toBe("new\n");
  });

  it("non-KRM file changed on both sides keeps the local text", () => {
    const result = upgrade([["README.md", "# v1", "# local"]], [["README.md", "# v1", "# v2"]]);
    expect(result.files["README.md"]).toBe("# local\n");
    expect(result.conflicts[0].message).toBe(
      "README.md: changed locally and upstream; local version kept, upstream change not applied",
    );
  });

  it("a conflict carries file, resource, field and both values", () => {
    const result = upgrade(
      [["deploy.yaml", "replicas: 1", "replicas: 5"]],
      [["deploy.yaml", "replicas: 1", "replicas: 3"]],
    );
    expect(result.conflicts).toEqual([
      {
        reason: "BothModified",
        file: "deploy.yaml",
        resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "demo", name: "app" },
        field: "spec.replicas",
        localValue: 5,
        upstreamValue: 3,
        resolution: "upstream",
        message:
          "deploy.yaml Deployment demo/app spec.replicas: changed on both sides; upstream value 3 replaced local value 5",
      },
    ]);
  });

  it("keeps comments, field order and untouched files byte for byte", () => {
    const local = applyEdits(clonedV1(), [
      ["deploy.yaml", "  labels:\n", "  # set by the platform team\n  labels:\n"],
    ]);
    const result = upgradePackage(
      {
        original: upstreamV1(),
        updated: applyEdits(upstreamV1(), [["deploy.yaml", "replicas: 1", "replicas: 3"]]),
        local,
      },
      "resource-merge",
      LOCK_V2,
    );
    expect(result.files["deploy.yaml"]).toBe(
      local["deploy.yaml"].replace("replicas: 1", "replicas: 3"),
    );
    for (const path of ["service.yaml", "widget.yaml", "multi.yaml", "sub/cm.yaml", "README.md"]) {
      expect(result.files[path]).toBe(local[path]);
    }
  });

  it("a field added upstream is inserted after its upstream predecessor", () => {
    const result = upgrade(
      [],
      [
        [
          "deploy.yaml",
          "          image: nginx:1.0\n",
          "          image: nginx:1.0\n          imagePullPolicy: Always\n",
        ],
      ],
    );
    const container = at(result.files, "deploy.yaml", "spec.template.spec.containers.0") as Record<
      string,
      unknown
    >;
    expect(Object.keys(container)).toEqual([
      "name",
      "image",
      "imagePullPolicy",
      "args",
      "env",
      "ports",
    ]);
  });

  it("a resource moved to another file upstream follows the move and keeps local edits", () => {
    const result = upgrade(
      [["service.yaml", "targetPort: 8080", "targetPort: 9090"]],
      [
        ["service.yaml", null],
        ["net/service.yaml", upstreamV1()["service.yaml"]],
      ],
    );
    expect(result.files).not.toHaveProperty(["service.yaml"]);
    expect(at(result.files, "net/service.yaml", "spec.ports.0.targetPort")).toBe(9090);
    expect(result.conflicts).toEqual([]);
  });

  it("a comment-only document in a local file survives a merge of that file", () => {
    const result = upgrade(
      [["multi.yaml", "  key: b\n", "  key: b\n---\n# retired: cm-c\n"]],
      [["multi.yaml", "key: b", "key: b2"]],
    );
    expect(result.files["multi.yaml"].endsWith("  key: b2\n---\n# retired: cm-c\n")).toBe(true);
  });

  it("objects added locally get kpt's merge markers on the next update", () => {
    const result = upgrade(
      [["mine.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n"]],
      [],
    );
    expect(result.files["mine.yaml"]).toContain("metadata: # kpt-merge: /mine\n");
    expect(objects(result.files, "mine.yaml")[0]).toHaveProperty(
      ["metadata", "annotations", "internal.kpt.dev/upstream-identifier"],
      "|ConfigMap|default|mine",
    );
  });

  it("the Kptfile records the new upstream and the strategy used", () => {
    const result = upgrade([], []);
    expect(objects(result.files, "Kptfile")[0]).toMatchObject({
      upstream: {
        type: "git",
        git: { repo: LOCK_V2.repo, directory: "/pkg", ref: "pkg/v2" },
        updateStrategy: "resource-merge",
      },
      upstreamLock: {
        type: "git",
        git: { repo: LOCK_V2.repo, directory: "/pkg", ref: "pkg/v2", commit: LOCK_V2.commit },
      },
    });
  });
});

const subpackageRows: {
  name: string;
  local: Edit[];
  upstream: Edit[];
  check: (r: UpgradeResult) => void;
  conflicts: ConflictReason[];
}[] = [
  {
    name: "subpackage resources merge like the root's",
    local: [["sub/cm.yaml", "  mode: one\n", "  mode: one\n  extra: local\n"]],
    upstream: [["sub/cm.yaml", "mode: one", "mode: two"]],
    check: r => expect(at(r.files, "sub/cm.yaml", "data")).toEqual({ mode: "two", extra: "local" }),
    conflicts: [],
  },
  {
    name: "subpackage Kptfile merged 3-way",
    local: [],
    upstream: [["sub/Kptfile", "a subpackage", "a better subpackage"]],
    check: r => expect(at(r.files, "sub/Kptfile", "info.description")).toBe("a better subpackage"),
    conflicts: [],
  },
  {
    name: "subpackage added upstream: copied",
    local: [],
    upstream: [
      ["new/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: new\n"],
      ["new/notes.txt", "hi\n"],
    ],
    check: r => expect(r.files["new/notes.txt"]).toBe("hi\n"),
    conflicts: [],
  },
  {
    name: "subpackage deleted upstream, untouched locally: removed",
    local: [],
    upstream: [
      ["sub/Kptfile", null],
      ["sub/cm.yaml", null],
    ],
    check: r => expect(Object.keys(r.files).filter(p => p.startsWith("sub/"))).toEqual([]),
    conflicts: [],
  },
  {
    name: "subpackage deleted upstream, modified locally: kept",
    local: [["sub/cm.yaml", "mode: one", "mode: mine"]],
    upstream: [
      ["sub/Kptfile", null],
      ["sub/cm.yaml", null],
    ],
    check: r => expect(at(r.files, "sub/cm.yaml", "data.mode")).toBe("mine"),
    conflicts: ["DeletedUpstreamModifiedLocally"],
  },
  {
    name: "subpackage deleted locally: not re-added",
    local: [
      ["sub/Kptfile", null],
      ["sub/cm.yaml", null],
    ],
    upstream: [["sub/cm.yaml", "mode: one", "mode: two"]],
    check: r => expect(r.files).not.toHaveProperty(["sub/cm.yaml"]),
    conflicts: ["DeletedLocallyModifiedUpstream"],
  },
];

describe("resource-merge subpackages", () => {
  it.each(subpackageRows.map(row => [row.name, row] as const))("%s", (_, row) => {
    const result = upgrade(row.local, row.upstream);
    row.check(result);
    expect(result.conflicts.map(c => c.reason)).toEqual(row.conflicts);
  });

  it("subpackage added on both sides fails as in kpt", () => {
    const kptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: twin\n";
    expect(() => upgrade([["twin/Kptfile", kptfile]], [["twin/Kptfile", kptfile]])).toThrow(
      'subpackage "twin" added in both upstream and local',
    );
  });
});
