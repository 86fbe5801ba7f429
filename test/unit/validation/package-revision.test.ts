import type { PackageRevision, PackageRevisionResources } from "../../../crd-types";
import { validatePackageRevision, validatePackageRevisionResources } from "../../../lib/validation";
import { execView } from "../../support/function-catalog";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import { DEFAULT_CATALOG_VIEW } from "../../../lib/fn";
import { SOURCE_MUTATIONS_ANNOTATION } from "../../../lib/package-variant";

const pr = (spec: Record<string, unknown>, status: Record<string, unknown> = {}) =>
  ({
    metadata: { name: "r.p.ws" },
    spec: { packageName: "p", repository: "r", workspaceName: "ws", ...spec },
    status,
  }) as PackageRevision;
const user = (operation: string) => ({ operation, byOperator: false });
const git = { repo: "https://example.com/b.git", ref: "main", directory: "base" };

describe("validatePackageRevision", () => {
  it.each<[string, PackageRevision, PackageRevision | undefined, string, string[]]>([
    ["a new Draft", pr({ lifecycle: "Draft", source: { init: {} } }), undefined, "CREATE", []],
    [
      "a new Draft made by init in a subpackage",
      pr({ lifecycle: "Draft", source: { init: { subpackage: "db" } } }),
      undefined,
      "CREATE",
      [
        'spec.source.init.subpackage ("db") is not supported: init creates the package itself; create it without subpackage, then add db/Kptfile through its PackageRevisionResources',
      ],
    ],
    [
      "a new revision created Published",
      pr({ lifecycle: "Published", source: { init: {} } }),
      undefined,
      "CREATE",
      ["spec.lifecycle: a new package revision starts as Draft or Proposed, not Published"],
    ],
    [
      "a new revision created Published without a source (it would publish what git holds)",
      pr({ lifecycle: "Published" }),
      undefined,
      "CREATE",
      ["spec.lifecycle: a new package revision starts as Draft or Proposed, not Published"],
    ],
    ["Draft → Proposed", pr({ lifecycle: "Proposed" }), pr({ lifecycle: "Draft" }), "UPDATE", []],
    [
      "Published → Draft",
      pr({ lifecycle: "Draft" }),
      pr({ lifecycle: "Published" }),
      "UPDATE",
      [
        "spec.lifecycle: a Published revision cannot go back to Draft: create a new draft from it (spec.source.copyFrom)",
      ],
    ],
    [
      "Draft → Published",
      pr({ lifecycle: "Published" }),
      pr({ lifecycle: "Draft" }),
      "UPDATE",
      ["spec.lifecycle: a Draft must be Proposed before it can be Published"],
    ],
    [
      "immutable fields",
      pr({
        lifecycle: "Draft",
        packageName: "q",
        workspaceName: "ws2",
        source: { init: { description: "x" } },
      }),
      pr({ lifecycle: "Draft", source: { init: {} } }),
      "UPDATE",
      [
        "spec.packageName is immutable",
        "spec.workspaceName is immutable",
        "spec.source is immutable",
      ],
    ],
    [
      "a git source written back with an empty secretRef (porchctl's Go types)",
      pr({
        lifecycle: "Proposed",
        source: { cloneFrom: { git: { ...git, secretRef: { name: "" } } } },
      }),
      pr({ lifecycle: "Draft", source: { cloneFrom: { git } } }),
      "UPDATE",
      [],
    ],
    [
      "a git source that gains credentials",
      pr({
        lifecycle: "Draft",
        source: { cloneFrom: { git: { ...git, secretRef: { name: "s" } } } },
      }),
      pr({
        lifecycle: "Draft",
        source: { cloneFrom: { git: { ...git, secretRef: { name: "" } } } },
      }),
      "UPDATE",
      ["spec.source is immutable"],
    ],
    [
      "unmet readiness gates (the stored object's conditions)",
      pr({ lifecycle: "Published", readinessGates: [{ conditionType: "ok" }] }),
      pr(
        {
          lifecycle: "Proposed",
          readinessGates: [
            { conditionType: "config.injection.ConfigMap.endpoints" },
            { conditionType: "ok" },
          ],
        },
        { conditions: [{ type: "ok", status: "True" }] },
      ),
      "UPDATE",
      [
        "spec.readinessGates: config.injection.ConfigMap.endpoints cannot be removed here: the revision's Kptfile declares them (remove them from its info.readinessGates)",
        "spec.lifecycle: readiness gates not met: config.injection.ConfigMap.endpoints",
      ],
    ],
    [
      "publishing and dropping the unmet gate in one patch",
      pr({ lifecycle: "Published", readinessGates: [] }),
      pr({ lifecycle: "Proposed", readinessGates: [{ conditionType: "approved-by-qa" }] }),
      "UPDATE",
      [
        "spec.readinessGates: approved-by-qa cannot be removed here: the revision's Kptfile declares them (remove them from its info.readinessGates)",
        "spec.lifecycle: readiness gates not met: approved-by-qa",
      ],
    ],
    [
      "publishing with a condition the request itself claims",
      pr(
        { lifecycle: "Published", readinessGates: [{ conditionType: "qa" }] },
        { conditions: [{ type: "qa", status: "True" }] },
      ),
      pr({ lifecycle: "Proposed", readinessGates: [{ conditionType: "qa" }] }),
      "UPDATE",
      ["spec.lifecycle: readiness gates not met: qa"],
    ],
    [
      "a gate added by the request counts too",
      pr({ lifecycle: "Published", readinessGates: [{ conditionType: "new" }] }),
      pr({ lifecycle: "Proposed" }),
      "UPDATE",
      ["spec.lifecycle: readiness gates not met: new"],
    ],
  ])("%s", (_name, next, old, operation, expected) => {
    expect(validatePackageRevision(next, old, user(operation))).toEqual(expected);
  });

  it("lets the controllers mirror a Published revision and adopt a publish done elsewhere", () => {
    expect(
      validatePackageRevision(pr({ lifecycle: "Published", source: { init: {} } }), undefined, {
        operation: "CREATE",
        byOperator: true,
      }),
    ).toEqual([]);
    expect(
      validatePackageRevision(pr({ lifecycle: "Published" }), pr({ lifecycle: "Draft" }), {
        operation: "UPDATE",
        byOperator: true,
      }),
    ).toEqual([]);
  });

  it("leaves the source-mutations annotation to the operator's own drafts", () => {
    const marked = {
      ...pr({ lifecycle: "Draft", source: { copyFrom: { name: "r.p.v1" } } }),
      metadata: { name: "r.p.ws", annotations: { [SOURCE_MUTATIONS_ANNOTATION]: "pv-uid" } },
    } as PackageRevision;
    expect(validatePackageRevision(marked, undefined, user("CREATE"))).toEqual([
      `metadata.annotations[${SOURCE_MUTATIONS_ANNOTATION}] is set only by the operator, on the drafts its PackageVariants create; it cannot be set or changed`,
    ]);
    expect(
      validatePackageRevision(marked, undefined, { operation: "CREATE", byOperator: true }),
    ).toEqual([]);
  });

  it("lets a terminating object go", () => {
    const deleting = {
      ...pr({ lifecycle: "Draft" }),
      metadata: { name: "x", deletionTimestamp: new Date() },
    } as PackageRevision;
    expect(
      validatePackageRevision(deleting, pr({ lifecycle: "Published" }), user("UPDATE")),
    ).toEqual([]);
  });
});

describe("validatePackageRevisionResources", () => {
  const prr = (files: Record<string, string>) =>
    ({ spec: { resources: files } }) as PackageRevisionResources;
  it.each<[string, string | undefined, string, string[]]>([
    ["a Draft's files", "Draft", "UPDATE", []],
    [
      "a Proposed revision's files (under review: the approval approves what was reviewed)",
      "Proposed",
      "UPDATE",
      [
        "spec.resources: cannot update a package revision with lifecycle value Proposed; package must be Draft (move it back to Draft to edit it)",
      ],
    ],
    [
      "a Published revision's files",
      "Published",
      "UPDATE",
      [
        "spec.resources: the files of a Published revision are read-only; create a new draft from it (spec.source.copyFrom) and edit that",
      ],
    ],
    [
      "a DeletionProposed revision's files",
      "DeletionProposed",
      "UPDATE",
      [
        "spec.resources: the files of a DeletionProposed revision are read-only; create a new draft from it (spec.source.copyFrom) and edit that",
      ],
    ],
  ])("%s", (_name, lifecycle, operation, expected) => {
    expect(
      validatePackageRevisionResources(
        prr({ a: "2" }),
        prr({ a: "1" }),
        lifecycle,
        user(operation),
      ),
    ).toEqual(expected);
  });

  it("allows the controllers' refresh and unchanged files", () => {
    expect(
      validatePackageRevisionResources(prr({ a: "2" }), prr({ a: "1" }), "Published", {
        operation: "UPDATE",
        byOperator: true,
      }),
    ).toEqual([]);
    expect(
      validatePackageRevisionResources(
        prr({ a: "1" }),
        prr({ a: "1" }),
        "Published",
        user("UPDATE"),
      ),
    ).toEqual([]);
  });

  // The limits a package read from git is held to: a tenant cannot write what the operator
  // would refuse to read back (the API server alone takes about 3 MiB).
  it("refuses files over the git content limits, naming each file, its size, the limit and the setting", () => {
    const big = "x".repeat(1024 * 1024 + 1);
    const files = { Kptfile: "k", "big.yaml": big, "\u00e9t\u00e9.yaml": "\u00e9".repeat(600_000) };
    expect(validatePackageRevisionResources(prr(files), prr({}), "Draft", user("UPDATE"))).toEqual([
      'spec.resources: file "big.yaml" is 1048577 bytes, over the per-file limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)',
      'spec.resources: file "\u00e9t\u00e9.yaml" is 1200000 bytes, over the per-file limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)',
      "spec.resources: the package's files are 2248578 bytes in all, over the per-package limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_PACKAGE_BYTES)",
    ]);
    const limits = { ...DEFAULT_CONTENT_LIMITS, maxPackageFiles: 2 };
    const three = { Kptfile: "k", "a.yaml": "a", "b.yaml": "b" };
    expect(
      validatePackageRevisionResources(
        prr(three),
        undefined,
        undefined,
        user("CREATE"),
        DEFAULT_CATALOG_VIEW,
        limits,
      ),
    ).toEqual([
      "spec.resources: the package has 3 files, over the limit of 2 files per package (PORCH_PEPR_GIT_MAX_PACKAGE_FILES)",
    ]);
  });

  const kptfileRunning = (exec: string) =>
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n    - exec: ${exec}\n`;
  const allowing = (exec: string) => execView({ [exec]: exec });

  // A package over the limits is refused for its sizes alone: its Kptfiles are not parsed, so a
  // request cannot hold the webhook's event loop for as long as a megabyte of YAML takes.
  it("does not read the Kptfiles of a package over the size limits", () => {
    const files = { Kptfile: kptfileRunning("/bin/sh"), "big.yaml": "x".repeat(1024 * 1024 + 1) };
    expect(validatePackageRevisionResources(prr(files), prr({}), "Draft", user("UPDATE"))).toEqual([
      'spec.resources: file "big.yaml" is 1048577 bytes, over the per-file limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)',
      "spec.resources: the package's files are 1048676 bytes in all, over the per-package limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_PACKAGE_BYTES)",
    ]);
  });

  it("refuses unsafe file names on create and update, naming every key printably", () => {
    const files = { Kptfile: "", "../escape.yaml": "", "a\u0000b.yaml": "", "ok.yaml": "" };
    const expected = [
      'spec.resources has unsafe file names: "../escape.yaml" has a ".." segment, "a\\u0000b.yaml" contains a control or invisible character',
    ];
    expect(
      validatePackageRevisionResources(prr(files), prr({ a: "1" }), "Draft", user("UPDATE")),
    ).toEqual(expected);
    expect(
      validatePackageRevisionResources(prr(files), undefined, undefined, user("CREATE")),
    ).toEqual(expected);
  });

  it("refuses a Kptfile exec function the function catalog does not run, in any package", () => {
    const files = { Kptfile: kptfileRunning("/opt/fn"), "sub/Kptfile": kptfileRunning("/bin/sh") };
    expect(validatePackageRevisionResources(prr(files), prr({}), "Draft", user("UPDATE"))).toEqual([
      'spec.resources["Kptfile"] pipeline.mutators[0]: exec function "/opt/fn" is not allowed: the function catalog has no entry for it (ask the administrator)',
      'spec.resources["sub/Kptfile"] pipeline.mutators[0]: exec function "/bin/sh" is not allowed: the function catalog has no entry for it (ask the administrator)',
    ]);
    expect(
      validatePackageRevisionResources(
        prr(files),
        prr({}),
        "Draft",
        user("UPDATE"),
        allowing("/opt/fn"),
      ),
    ).toEqual([
      `spec.resources["sub/Kptfile"] pipeline.mutators[0]: exec function "/bin/sh" is not allowed: the function catalog has no entry for it (ask the administrator)`,
    ]);
  });

  it("refuses Kptfiles listing more functions together than the render runs", () => {
    const labels = (n: number): string =>
      `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n${"    - image: set-labels\n".repeat(n)}`;
    const files = { Kptfile: labels(30), "sub/Kptfile": labels(21) };
    expect(validatePackageRevisionResources(prr(files), prr({}), "Draft", user("UPDATE"))).toEqual([
      "spec.resources: its Kptfile pipelines list 51 functions together, more than 50 (PORCH_PEPR_PIPELINE_MAX_FUNCTIONS)",
    ]);
    expect(
      validatePackageRevisionResources(
        prr({ ...files, "sub/Kptfile": labels(20) }),
        prr({}),
        "Draft",
        user("UPDATE"),
      ),
    ).toEqual([]);
  });
});
