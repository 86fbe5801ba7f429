import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGitRepository, kptfile, registerRepository, revision } from "../support/git";
import {
  bindRole,
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  mergePatchArgs,
} from "../support/kubectl";
import { lifecycleReached, rendered, type PR } from "../support/package-revisions";
import { eventually } from "../support/wait";

// Issue 27, as tenants would meet it: users impersonated with `kubectl --as`, each bound in one
// namespace to the ClusterRoles of manifests/package-roles.yaml (README, Security model).
const EDITOR = "sod-editor"; // edits and proposes; may not read ConfigMaps, may not approve
const APPROVER = "sod-approver";
const LEAD = "sod-lead"; // editor and approver: the self-approval policy is about this user
let ns: string;
let url: string;

const as = (user: string, args: string[], input?: string) =>
  kubectl([...args, "--as", user], input);
const patchAs = (user: string, name: string, patch: object) =>
  as(user, mergePatchArgs("packagerevision", name, ns, patch));
const applyAs = (user: string, manifest: object, dryRun = false) =>
  as(
    user,
    ["apply", ...(dryRun ? ["--dry-run=server"] : []), "-n", ns, "-f", "-"],
    JSON.stringify(manifest),
  );

const bind = (user: string, role: string) => bindRole(ns, user, role);

/** A Draft copy of a published revision, made and proposed by `user`. */
async function proposedCopy(user: string, from: string, workspace: string): Promise<string> {
  const [repository, packageName] = from.split(".");
  const name = `${repository}.${packageName}.${workspace}`;
  const created = applyAs(user, {
    apiVersion: "porch.kpt.dev/v1alpha2",
    kind: "PackageRevision",
    metadata: { name },
    spec: {
      packageName,
      repository,
      workspaceName: workspace,
      lifecycle: "Draft",
      source: { copyFrom: { name: from } },
    },
  });
  expect(created.stderr).toBe("");
  await rendered(ns, name);
  expect(patchAs(user, name, { spec: { lifecycle: "Proposed" } }).stderr).toBe("");
  await lifecycleReached(ns, name, "Proposed");
  return name;
}

const GATE = "qa.example.com/approved";

beforeAll(async () => {
  ns = createNamespace("e2e-sod");
  kubectlOk(["apply", "-f", join(__dirname, "../../manifests/package-roles.yaml")]);
  bind(EDITOR, "porch-pepr-package-editor");
  bind(APPROVER, "porch-pepr-package-approver");
  bind(LEAD, "porch-pepr-package-editor");
  bind(LEAD, "porch-pepr-package-approver");
  kubectlOk(["label", "namespace", ns, "porch.kpt.dev/forbid-self-approval=true"]);
  url = await createGitRepository("sod", [
    { name: "app", revisions: [revision("v1", { Kptfile: kptfile("app") })] },
    {
      name: "gated",
      revisions: [
        revision("v1", {
          Kptfile: `${kptfile("gated")}info:\n  readinessGates:\n    - conditionType: ${GATE}\n`,
        }),
      ],
    },
  ]);
  registerRepository(ns, "catalog", url);
  await eventually("the published revisions mirrored", () =>
    getJson<PR>("packagerevision", "catalog.gated.v1", ns) &&
    getJson<PR>("packagerevision", "catalog.app.v1", ns)
      ? true
      : undefined,
  );
});
afterAll(() => deleteNamespace(ns, ["packagerevisions", "repositories"]));

describe("approval is its own right, and the approver is recorded truthfully", () => {
  let name: string;
  beforeAll(async () => {
    name = await proposedCopy(LEAD, "catalog.app.v1", "next");
  });

  it("denies an editor without update on packagerevisions/approval", () => {
    const result = patchAs(EDITOR, name, { spec: { lifecycle: "Published" } });
    expect(result.stderr).toContain(
      `spec.lifecycle: "${EDITOR}" may not update packagerevisions/approval in namespace "${ns}"`,
    );
  });

  it("denies the proposer approving their own proposal where the namespace forbids it", () => {
    const result = patchAs(LEAD, name, { spec: { lifecycle: "Published" } });
    expect(result.stderr).toContain(`"${LEAD}" proposed this revision and may not approve it`);
  });

  it("records the approver the API server authenticated, not a value the client sent", () => {
    const result = patchAs(APPROVER, name, {
      metadata: { annotations: { "porch.kpt.dev/approved-by": "ceo" } },
      spec: { lifecycle: "Published" },
    });
    expect(result.stderr).toBe("");
    const pr = getJson<PR>("packagerevision", name, ns);
    expect(pr?.metadata.annotations?.["porch.kpt.dev/approved-by"]).toBe(APPROVER);
    expect(pr?.metadata.annotations?.["porch.kpt.dev/proposed-by"]).toBe(LEAD);
  });

  it("publishes for an approver, and publishedBy and git name the approver", async () => {
    await lifecycleReached(ns, name, "Published");
    const published = await eventually(
      "publishedBy",
      () =>
        getJson<PR & { status?: { publishedBy?: string } }>("packagerevision", name, ns)?.status
          ?.publishedBy,
    );
    expect(published).toBe(APPROVER);
    const clone = mkdtempSync(join(tmpdir(), "sod-"));
    execFileSync("git", ["clone", "--quiet", "--bare", url, clone]);
    const log = execFileSync("git", ["-C", clone, "log", "-1", "--format=%an%n%B", "app/v2"], {
      encoding: "utf8",
    });
    expect(log.split("\n")[0]).toBe(APPROVER);
    expect(log).toContain(`Proposed-by: ${LEAD}\nApproved-by: ${APPROVER}`);
  });
});

describe("gates are checked on what is stored", () => {
  it("denies publishing and dropping an unmet Kptfile gate in one patch", async () => {
    const name = await proposedCopy(EDITOR, "catalog.gated.v1", "next");
    const result = patchAs(APPROVER, name, {
      spec: { lifecycle: "Published", readinessGates: [] },
    });
    expect(result.stderr).toContain(`spec.lifecycle: readiness gates not met: ${GATE}`);
    expect(getJson<PR>("packagerevision", name, ns)?.spec.lifecycle).toBe("Proposed");
  });
});

describe("the operator reads for a tenant only what the tenant may read", () => {
  it("denies injecting or selecting ConfigMaps by a user who may not read them", () => {
    kubectlOk(["create", "configmap", "db", "-n", ns, "--from-literal=password=s3cret"]);
    const injected = applyAs(EDITOR, {
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "PackageVariant",
      metadata: { name: "steal" },
      spec: {
        upstream: { repo: "catalog", package: "app", revision: 1 },
        downstream: { repo: "catalog", package: "stolen" },
        injectors: [{ kind: "ConfigMap", name: "db" }],
      },
    });
    expect(injected.stderr).toContain(
      `spec.injectors[0]: "${EDITOR}" may not get configmaps "db" in namespace "${ns}"`,
    );
    const selected = applyAs(EDITOR, {
      apiVersion: "config.porch.kpt.dev/v1alpha2",
      kind: "PackageVariantSet",
      metadata: { name: "steal-all" },
      spec: {
        upstream: { repo: "catalog", package: "app", revision: 1 },
        targets: [
          {
            objectSelector: { apiVersion: "v1", kind: "ConfigMap" },
            template: { downstream: { repo: "catalog" } },
          },
        ],
      },
    });
    expect(selected.stderr).toContain(
      `spec.targets[0].objectSelector: "${EDITOR}" may not list configmaps in namespace "${ns}"`,
    );
    // Nothing was stored, so nothing reaches a package.
    expect(getJson("packagevariant", "steal", ns)).toBeUndefined();
    expect(getJson("packagevariantset", "steal-all", ns)).toBeUndefined();
  });

  it("denies a commit identity that would forge a header line", () => {
    const result = applyAs(
      EDITOR,
      {
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "Repository",
        metadata: { name: "forged" },
        spec: {
          git: {
            repo: "http://127.0.0.1:9/forged.git",
            branch: "main",
            email: "a@example.com>\ncommitter Mallory <m@example.com> 0 +0000",
          },
        },
      },
      true,
    );
    expect(result.stderr).toContain(
      "spec.git.email: Invalid value: \"a@example.com>\\ncommitter Mallory <m@example.com> 0 +0000\": must not contain control characters, '<' or '>'",
    );
  });
});
