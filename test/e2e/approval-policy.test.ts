import { join } from "node:path";
import { createGitRepository, kptfile, registerRepository, revision } from "../support/git";
import {
  bindRole,
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  listJson,
} from "../support/kubectl";
import { condition, type PR } from "../support/package-revisions";
import { eventually } from "../support/wait";

// Issue 30 item 4: Nephio's approval.nephio.org/policy, acting only under a grant admission
// recorded from a user whose approval right it checked. Users impersonated with `kubectl --as`.
const EDITOR = "ap-editor"; // edits variants, sets and revisions; may not approve
const LEAD = "ap-lead"; // editor and approver
const POLICY = "approval.nephio.org/policy";
const GRANT = "porch.kpt.dev/approval-policy-granted-by";
let ns: string;

const as = (user: string, args: string[], input?: object) =>
  kubectl([...args, "--as", user], input && JSON.stringify(input));
const applyAs = (user: string, manifest: object, dryRun = false) =>
  as(
    user,
    ["apply", ...(dryRun ? ["--dry-run=server", "-o", "json"] : []), "-n", ns, "-f", "-"],
    manifest,
  );
const denial = (user: string, field: string) =>
  `${field}[${POLICY}]: "${user}" may not update packagerevisions/approval in namespace "${ns}"`;

const variant = (name: string, annotations: Record<string, string>, revision = 1) => ({
  apiVersion: "config.porch.kpt.dev/v1alpha1",
  kind: "PackageVariant",
  metadata: { name },
  spec: {
    upstream: { repo: "catalog", package: "app", revision },
    downstream: { repo: "deploy", package: name },
    annotations,
  },
});
const set = (name: string, template: object, revision = 1) => ({
  apiVersion: "config.porch.kpt.dev/v1alpha2",
  kind: "PackageVariantSet",
  metadata: { name },
  spec: {
    upstream: { repo: "catalog", package: "app", revision },
    targets: [{ repositories: [{ name: "deploy", packageNames: [name] }], template }],
  },
});
const revisionsOf = (pkg: string) =>
  listJson<PR>("packagerevisions", ns).filter(
    pr => pr.spec.repository === "deploy" && pr.spec.packageName === pkg,
  );

beforeAll(async () => {
  ns = createNamespace("e2e-approval-policy");
  kubectlOk(["apply", "-f", join(__dirname, "../../manifests/package-roles.yaml")]);
  bindRole(ns, EDITOR, "porch-pepr-package-editor");
  bindRole(ns, LEAD, "porch-pepr-package-editor");
  bindRole(ns, LEAD, "porch-pepr-package-approver");
  const catalog = await createGitRepository("ap-catalog", [
    {
      name: "app",
      revisions: [
        revision("v1", { Kptfile: kptfile("app") }),
        revision("v2", { Kptfile: kptfile("app") }),
      ],
    },
  ]);
  registerRepository(ns, "catalog", catalog);
  registerRepository(ns, "deploy", await createGitRepository("ap-deploy"), { deployment: true });
  await eventually("the upstream mirrored", () =>
    getJson<PR>("packagerevision", "catalog.app.v2", ns) ? true : undefined,
  );
});
afterAll(() =>
  deleteNamespace(ns, [
    "packagevariantsets",
    "packagevariants",
    "packagerevisions",
    "repositories",
  ]),
);

describe("a policy is an approval: only a user with the approval right sets one", () => {
  it("denies it on a variant, a set's template and a revision; names bad values", () => {
    expect(applyAs(EDITOR, variant("denied", { [POLICY]: "always" })).stderr).toContain(
      denial(EDITOR, "spec.annotations"),
    );
    expect(
      applyAs(EDITOR, set("denied", { annotations: { [POLICY]: "always" } })).stderr,
    ).toContain(denial(EDITOR, "spec.targets[0].template.annotations"));
    const patch = { metadata: { annotations: { [POLICY]: "always" } } };
    expect(
      as(EDITOR, [
        "patch",
        "packagerevision",
        "catalog.app.v1",
        "-n",
        ns,
        "--type=merge",
        "-p",
        JSON.stringify(patch),
      ]).stderr,
    ).toContain(denial(EDITOR, "metadata.annotations"));
    const bad = applyAs(
      LEAD,
      variant("bad", { [POLICY]: "sometimes", "approval.nephio.org/delay": "soon" }),
    );
    expect(bad.stderr).toContain(
      `unknown approval policy "sometimes": must be "initial" or "always"`,
    );
    expect(bad.stderr).toContain(`"soon" is not a delay`);
  });

  it("records the grantor from the authenticated user, never the value sent", () => {
    const result = applyAs(LEAD, variant("forged", { [POLICY]: "initial", [GRANT]: "ceo" }), true);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout).spec.annotations[GRANT]).toBe(LEAD);
  });
});

describe("an `initial` policy on a set's template", () => {
  it("publishes the first revision of each variant's package only, on behalf of the grantor", async () => {
    expect(applyAs(LEAD, set("first", { annotations: { [POLICY]: "initial" } })).stderr).toBe("");
    const published = await eventually(
      "the first draft published by the policy",
      () => revisionsOf("first").find(pr => pr.spec.lifecycle === "Published"),
      90_000,
    );
    const approvedBy = published.metadata.annotations?.["porch.kpt.dev/approved-by"] ?? "";
    expect(approvedBy).toMatch(new RegExp(` on behalf of ${LEAD}$`));
    expect(published.metadata.annotations?.[GRANT]).toBe(LEAD);

    // The upgrade draft the next upstream revision brings waits for a person.
    expect(applyAs(LEAD, set("first", { annotations: { [POLICY]: "initial" } }, 2)).stderr).toBe(
      "",
    );
    const upgrade = await eventually(
      "the upgrade draft refused by the policy",
      () =>
        revisionsOf("first").find(pr => condition(pr, "ApprovalPolicy")?.reason === "PolicyNotMet"),
      90_000,
    );
    expect(upgrade.spec.lifecycle).toBe("Draft");
    expect(revisionsOf("first").filter(pr => pr.spec.lifecycle === "Published")).toHaveLength(1);
  });

  it("denies an editor the files of a draft under the granted policy, and the set", () => {
    const draft = revisionsOf("first").find(pr => pr.spec.lifecycle === "Draft");
    const edit = [{ op: "add", path: "/spec/resources/extra.yaml", value: "a: b\n" }];
    const name = draft?.metadata.name ?? "";
    const files = as(EDITOR, [
      "patch",
      "packagerevisionresources",
      name,
      "-n",
      ns,
      "--type=json",
      "-p",
      JSON.stringify(edit),
    ]);
    expect(files.stderr).toContain(
      `spec.resources[${POLICY}]: "${EDITOR}" may not update packagerevisions/approval in namespace "${ns}"`,
    );
    expect(files.stderr).toContain(`revision "${name}" is under approval policy "initial"`);

    const steer = { spec: { upstream: { repo: "catalog", package: "app", revision: 3 } } };
    const result = as(EDITOR, [
      "patch",
      "packagevariantset",
      "first",
      "-n",
      ns,
      "--type=merge",
      "-p",
      JSON.stringify(steer),
    ]);
    expect(result.stderr).toContain(denial(EDITOR, "spec.targets[0].template.annotations"));
  });
});

describe("a policy no admission granted", () => {
  it("approves nothing: a set's computed key makes the policy, not a grant", async () => {
    const template = {
      annotationExprs: [{ keyExpr: "'approval.nephio.org/' + 'policy'", value: "always" }],
    };
    expect(applyAs(EDITOR, set("computed", template)).stderr).toBe("");
    const refused = await eventually(
      "the draft refused for want of a grant",
      () =>
        revisionsOf("computed").find(pr => condition(pr, "ApprovalPolicy")?.reason === "NoGrant"),
      90_000,
    );
    expect(refused.metadata.annotations?.[POLICY]).toBe("always");
    expect(refused.spec.lifecycle).toBe("Draft");
  });
});
