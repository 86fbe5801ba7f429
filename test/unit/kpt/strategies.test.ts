// fast-forward, force-delete-replace and copy-merge (kpt main / Porch semantics).
import { upgradePackage } from "../../../lib/kpt/upgrade";
import { UpgradeError, type UpdateStrategy } from "../../../lib/kpt/types";
import { applyEdits, at, clonedV1, type Edit, LOCK_V2, objects, upstreamV1 } from "./fixtures";

const UPSTREAM_CHANGES: Edit[] = [
  ["deploy.yaml", "replicas: 1", "replicas: 3"],
  ["service.yaml", null],
  ["added.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\n"],
  ["Kptfile", "description: sample package", "description: v2"],
];

const LOCAL_CHANGES: Edit[] = [
  ["deploy.yaml", "replicas: 1", "replicas: 5"],
  ["widget.yaml", "size: small", "size: medium"],
  ["mine.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n"],
  ["Kptfile", "app: demo", "app: local"],
];

/** Objects without kpt's merge markers, for comparing with plain upstream files. */
function unmarked(files: Record<string, string>, path: string): unknown[] {
  return objects(files, path).map(object => {
    const copy = structuredClone(object) as { metadata?: { annotations?: Record<string, string> } };
    const annotations = copy.metadata?.annotations;
    if (annotations) {
      delete annotations["internal.kpt.dev/upstream-identifier"];
      if (Object.keys(annotations).length === 0) delete copy.metadata?.annotations;
    }
    return copy;
  });
}

function run(strategy: UpdateStrategy, local: Edit[]) {
  const input = {
    original: upstreamV1(),
    updated: applyEdits(upstreamV1(), UPSTREAM_CHANGES),
    local: applyEdits(clonedV1(), local),
  };
  return { input, result: upgradePackage(input, strategy, LOCK_V2) };
}

describe("fast-forward", () => {
  it("replaces an unmodified package with the new upstream", () => {
    const { input, result } = run("fast-forward", []);
    for (const path of ["deploy.yaml", "widget.yaml", "multi.yaml", "added.yaml", "sub/cm.yaml"]) {
      expect(unmarked(result.files, path)).toEqual(objects(input.updated, path));
    }
    expect(result.files).not.toHaveProperty(["service.yaml"]);
    expect(at(result.files, "Kptfile", "metadata.name")).toBe("mypkg");
    expect(at(result.files, "Kptfile", "info.description")).toBe("v2");
    expect(at(result.files, "Kptfile", "upstream.updateStrategy")).toBe("fast-forward");
    expect(result.conflicts).toEqual([]);
  });

  it("ignores and drops a local Kptfile status (Porch strips it first)", () => {
    const { result } = run("fast-forward", [
      [
        "Kptfile",
        "info:\n",
        'status:\n  conditions:\n    - type: Rendered\n      status: "True"\ninfo:\n',
      ],
    ]);
    expect(at(result.files, "Kptfile", "status")).toBeUndefined();
  });

  it.each<[string, Edit[], string[]]>([
    [
      "edited resource and added file",
      LOCAL_CHANGES.slice(0, 3),
      ["deploy.yaml", "mine.yaml", "widget.yaml"],
    ],
    ["edited Kptfile pipeline", [["Kptfile", "app: demo", "app: local"]], ["Kptfile"]],
    [
      "deleted subpackage",
      [
        ["sub/Kptfile", null],
        ["sub/cm.yaml", null],
      ],
      ["sub (Package)"],
    ],
    ["edited non-KRM file", [["README.md", "# v1", "# mine"]], ["README.md"]],
  ])("fails without output when the package was modified: %s", (_, local, files) => {
    const input = {
      original: upstreamV1(),
      updated: applyEdits(upstreamV1(), UPSTREAM_CHANGES),
      local: applyEdits(clonedV1(), local),
    };
    const before = JSON.stringify(input);
    let error: unknown;
    try {
      upgradePackage(input, "fast-forward", LOCK_V2);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UpgradeError);
    expect((error as UpgradeError).reason).toBe("LocalModifications");
    expect((error as UpgradeError).files).toEqual(files);
    expect((error as UpgradeError).message).toBe(
      `local package files have been modified: [${files.join(" ")}].\n  use a different update --strategy.`,
    );
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe("force-delete-replace", () => {
  it("replaces all content, drops local-only files, 3-way merges the root Kptfile, reports lost edits", () => {
    const { input, result } = run("force-delete-replace", LOCAL_CHANGES);
    for (const path of ["deploy.yaml", "widget.yaml", "added.yaml"]) {
      expect(unmarked(result.files, path)).toEqual(objects(input.updated, path));
    }
    expect(result.files).not.toHaveProperty(["mine.yaml"]);
    expect(result.files).not.toHaveProperty(["service.yaml"]);
    expect(at(result.files, "Kptfile", "pipeline.mutators.0.configMap.app")).toBe("local");
    expect(at(result.files, "Kptfile", "info.description")).toBe("v2");
    expect(at(result.files, "Kptfile", "upstream.updateStrategy")).toBe("force-delete-replace");
    expect(result.conflicts.map(c => `${c.reason} ${c.file}`)).toEqual([
      "LocalChangesDiscarded deploy.yaml",
      "LocalChangesDiscarded mine.yaml",
      "LocalChangesDiscarded widget.yaml",
    ]);
  });
});

describe("copy-merge", () => {
  it("overwrites upstream files, keeps local-only files, removes files deleted upstream", () => {
    const { input, result } = run("copy-merge", LOCAL_CHANGES);
    expect(unmarked(result.files, "deploy.yaml")).toEqual(objects(input.updated, "deploy.yaml"));
    expect(at(result.files, "widget.yaml", "spec.size")).toBe("small");
    expect(at(result.files, "mine.yaml", "metadata.name")).toBe("mine");
    expect(at(result.files, "added.yaml", "metadata.name")).toBe("added");
    expect(result.files).not.toHaveProperty(["service.yaml"]);
    expect(at(result.files, "Kptfile", "pipeline.mutators.0.configMap.app")).toBe("local");
    expect(at(result.files, "Kptfile", "upstream.updateStrategy")).toBe("copy-merge");
    expect(result.conflicts.map(c => `${c.reason} ${c.file}`)).toEqual([
      "LocalChangesDiscarded deploy.yaml",
      "LocalChangesDiscarded widget.yaml",
    ]);
  });
});

describe("strategy selection", () => {
  it("rejects an unknown strategy", () => {
    const input = { original: upstreamV1(), updated: upstreamV1(), local: clonedV1() };
    expect(() => upgradePackage(input, "rebase" as UpdateStrategy, LOCK_V2)).toThrow(
      'unrecognized update strategy "rebase"',
    );
  });

  it("defaults to resource-merge", () => {
    const input = { original: upstreamV1(), updated: upstreamV1(), local: clonedV1() };
    expect(
      at(upgradePackage(input, undefined, LOCK_V2).files, "Kptfile", "upstream.updateStrategy"),
    ).toBe("resource-merge");
  });
});
