import { join } from "node:path";
import {
  createGitRepository,
  gitServer,
  kptfile,
  registerRepository,
  revision,
} from "../support/git";
import {
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  mergePatchArgs,
} from "../support/kubectl";
import { PR } from "../support/package-revisions";
import { eventually } from "../support/wait";

// The operator serves every team's namespaces. These tests act as a tenant would: a user who may
// edit porch objects and ConfigMaps in one namespace, and read one Secret there but not another.
const TENANT = "tenant-a";
let ns: string;
let published: string;

const asTenant = (args: string[], input?: string) => kubectl([...args, "--as", TENANT], input);

/** A tenant's patch that names a controller's field manager, as anyone may. */
const patchAsController = (resource: string, manager: string, type: string, patch: unknown) =>
  asTenant([
    "patch",
    resource,
    published,
    "-n",
    ns,
    `--field-manager=${manager}`,
    `--type=${type}`,
    "-p",
    JSON.stringify(patch),
  ]);

function grantTenant(namespace: string): void {
  const rules = [
    {
      // Not the status subresources: status is the operator's record of what it did.
      apiGroups: ["porch.kpt.dev", "config.porch.kpt.dev"],
      resources: [
        "repositories",
        "packagevariants",
        "packagevariantsets",
        "packagerevisions",
        "packagerevisionresources",
      ],
      verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
    },
    { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
    { apiGroups: [""], resources: ["secrets"], resourceNames: ["readable"], verbs: ["get"] },
  ];
  kubectlOk(
    ["apply", "-n", namespace, "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: [
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "Role",
          metadata: { name: "tenant" },
          rules,
        },
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name: "tenant" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "tenant" },
          subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: TENANT }],
        },
      ],
    }),
  );
}

function basicAuthSecret(namespace: string, name: string): void {
  const { credentials } = gitServer(true);
  kubectlOk([
    "create",
    "secret",
    "generic",
    name,
    "-n",
    namespace,
    "--type=kubernetes.io/basic-auth",
    `--from-literal=username=${credentials?.username}`,
    `--from-literal=password=${credentials?.password}`,
  ]);
}

const repositoryWithSecret = (name: string, url: string, secret: string) =>
  JSON.stringify({
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "Repository",
    metadata: { name },
    spec: { git: { repo: url, branch: "main", secretRef: { name: secret } } },
  });

beforeAll(async () => {
  ns = createNamespace("e2e-tenancy");
  grantTenant(ns);
  basicAuthSecret(ns, "private");
  basicAuthSecret(ns, "readable");
  const url = await createGitRepository("tenancy", [
    {
      name: "app",
      revisions: [revision("v1", { Kptfile: kptfile("app"), "cm.yaml": "kind: ConfigMap\n" })],
    },
  ]);
  registerRepository(ns, "catalog", url);
  published = "catalog.app.v1";
  await eventually("the published revision and its files mirrored", () =>
    getJson<PR>("packagerevision", published, ns)?.spec.lifecycle === "Published" &&
    getJson("packagerevisionresources", published, ns)
      ? true
      : undefined,
  );
});
afterAll(() => deleteNamespace(ns, ["packagerevisions", "repositories"]));

describe("admission decides trust by identity, not by field manager", () => {
  it("refuses a tenant's edit of a published revision's files under a controller's field manager", () => {
    const result = patchAsController("packagerevisionresources", "packagerev-controller", "json", [
      { op: "add", path: "/spec/resources/extra.yaml", value: "kind: ConfigMap\n" },
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("the files of a Published revision are read-only");
  });

  it("refuses a tenant's impossible lifecycle move under a controller's field manager", () => {
    const result = patchAsController("packagerevision", "repository-controller", "merge", {
      spec: { lifecycle: "Draft" },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("a Published revision cannot go back to Draft");
  });

  it("keeps a revision's identity immutable in the schema itself, before any webhook", () => {
    const result = patchAsController("packagerevision", "packagerev-controller", "merge", {
      spec: { packageName: "x", workspaceName: "w" },
    });
    expect(result.code).not.toBe(0);
    // "is invalid" is the API server's schema validation, which runs before admission webhooks,
    // so these rules hold while the webhook is down.
    expect(result.stderr).toContain(`The PackageRevision "${published}" is invalid`);
    expect(result.stderr).toContain("spec.packageName: Invalid value");
    expect(result.stderr).toContain("packageName is immutable");
    expect(result.stderr).toContain("workspaceName is immutable");
  });
});

describe("a Secret is used only by those who may read it", () => {
  const { url: authUrl } = gitServer(true);

  it("denies a tenant's Repository naming a Secret the tenant cannot read", () => {
    const result = asTenant(
      ["apply", "-n", ns, "-f", "-"],
      repositoryWithSecret("stolen", authUrl, "private"),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      `spec.git.secretRef: "${TENANT}" may not get Secret "private" in namespace "${ns}"`,
    );
    expect(getJson("repository", "stolen", ns)).toBeUndefined();
  });

  it("admits a Secret the tenant may read, and the operator uses it", async () => {
    const url = await createGitRepository("tenancy-auth", [], true);
    const applied = asTenant(
      ["apply", "-n", ns, "-f", "-"],
      repositoryWithSecret("own", url, "readable"),
    );
    expect(applied.stderr).toBe("");
    const ready = await eventually("Repository own ready", () => {
      const repo = getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(
        "repository",
        "own",
        ns,
      );
      return repo?.status?.conditions?.find(c => c.type === "Ready" && c.status === "True");
    });
    expect(ready).toBeDefined();
  });

  it("denies a tenant's edit that points their own Repository at a Secret they cannot read", () => {
    const own = JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "Repository",
      metadata: { name: "tenants" },
      spec: { git: { repo: "http://127.0.0.1:9/tenant.git", branch: "main" } },
    });
    expect(asTenant(["apply", "-n", ns, "-f", "-"], own).code).toBe(0);
    const result = asTenant(
      mergePatchArgs("repository", "tenants", ns, {
        spec: { git: { secretRef: { name: "private" } } },
      }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`spec.git.secretRef: "${TENANT}" may not get Secret "private"`);
  });

  it("denies that edit on a Repository the tenant holds terminating with a finalizer of their own", () => {
    const held = JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "Repository",
      metadata: { name: "held", finalizers: ["example.com/hold"] },
      spec: { git: { repo: "http://127.0.0.1:9/held.git", branch: "main" } },
    });
    expect(asTenant(["apply", "-n", ns, "-f", "-"], held).code).toBe(0);
    expect(asTenant(["delete", "repository", "held", "-n", ns, "--wait=false"]).code).toBe(0);
    const result = asTenant(
      mergePatchArgs("repository", "held", ns, {
        spec: { git: { secretRef: { name: "private" } } },
      }),
    );
    expect(result.stderr).toContain(`spec.git.secretRef: "${TENANT}" may not get Secret "private"`);
    // The tenant's finalizer goes with an unchanged spec, as any finalizer does.
    const released = asTenant(
      mergePatchArgs("repository", "held", ns, { metadata: { finalizers: null } }),
    );
    expect(released.stderr).toBe("");
  });

  it("denies a clone from a raw git URL with a Secret the tenant cannot read", () => {
    const result = asTenant(
      ["apply", "-n", ns, "-f", "-"],
      JSON.stringify({
        apiVersion: "porch.kpt.dev/v1alpha2",
        kind: "PackageRevision",
        metadata: { name: "catalog.cloned.v1" },
        spec: {
          packageName: "cloned",
          repository: "catalog",
          workspaceName: "v1",
          lifecycle: "Draft",
          source: {
            cloneFrom: {
              git: { repo: authUrl, ref: "main", directory: "app", secretRef: { name: "private" } },
            },
          },
        },
      }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`spec.source.cloneFrom.git.secretRef: "${TENANT}" may not get`);
  });
});

describe("the module runs as a real install runs it", () => {
  it("authenticates as its own ServiceAccount, not as an administrator", () => {
    const kubeconfig = join(process.env.PORCH_PEPR_E2E_STATE ?? "", "module.kubeconfig");
    const whoami = JSON.parse(
      kubectlOk(["auth", "whoami", "-o", "json", "--kubeconfig", kubeconfig]),
    );
    expect(whoami.status.userInfo.username).toBe(
      "system:serviceaccount:pepr-system:pepr-porch-pepr",
    );
  });

  it("is bound to a ClusterRole without wildcards", () => {
    const role = JSON.parse(kubectlOk(["get", "clusterrole", "pepr-porch-pepr", "-o", "json"]));
    for (const rule of role.rules) {
      for (const field of ["apiGroups", "resources", "verbs"]) {
        expect(rule[field] ?? []).not.toContain("*");
      }
    }
    expect(JSON.stringify(role.rules)).not.toContain('"*"');
  });
});

// The rest of the list, each applied by the tenant (server-side dry runs: the webhook
// answers as it would for a real write, nothing is stored).
describe("what a tenant applies is bounded by the operator's rules, not by the tenant's rights", () => {
  const dryRun = (manifest: object) =>
    asTenant(["apply", "--dry-run=server", "-n", ns, "-f", "-"], JSON.stringify(manifest));
  const variant = (spec: object) => ({
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "PackageVariant",
    metadata: { name: "tenant-variant" },
    spec: {
      upstream: { repo: "catalog", package: "app", revision: 1 },
      downstream: { repo: "catalog", package: "copy" },
      ...spec,
    },
  });
  const repository = (repo: string) => ({
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "Repository",
    metadata: { name: "tenant-url" },
    spec: { git: { repo, branch: "main" } },
  });

  it("may not make the operator read a cluster-scoped object or an unlisted kind", () => {
    const injected = dryRun(
      variant({
        injectors: [{ group: "", version: "v1", kind: "Namespace", name: "kube-system" }],
      }),
    );
    expect(injected.stderr).toContain("spec.injectors[0]: v1/Namespace is cluster-scoped");
    const selected = dryRun({
      apiVersion: "config.porch.kpt.dev/v1alpha2",
      kind: "PackageVariantSet",
      metadata: { name: "tenant-set" },
      spec: {
        upstream: { repo: "catalog", package: "app", revision: 1 },
        targets: [
          {
            objectSelector: { apiVersion: "v1", kind: "Secret" },
            template: { downstream: { repo: "catalog" } },
          },
        ],
      },
    });
    expect(selected.stderr).toContain(
      "spec.targets[0].objectSelector: v1/Secret is not a readable kind",
    );
  });

  it("may not point git at a metadata address or put credentials in a URL", () => {
    expect(dryRun(repository("http://169.254.169.254/latest/meta-data")).stderr).toContain(
      'spec.git.repo: host "169.254.169.254" is a link-local or cloud metadata address',
    );
    expect(dryRun(repository("https://user:pw@example.com/r.git")).stderr).toContain(
      "spec.git.repo: credentials in the URL are not allowed; use secretRef",
    );
    expect(dryRun(repository("https://example.com\\@169.254.169.254/r.git")).stderr).toContain(
      "spec.git.repo: the URL contains a backslash",
    );
  });

  it("may not use a regex RE2 refuses in a template", () => {
    const result = dryRun({
      apiVersion: "config.porch.kpt.dev/v1alpha2",
      kind: "PackageVariantSet",
      metadata: { name: "tenant-regex" },
      spec: {
        upstream: { repo: "catalog", package: "app", revision: 1 },
        targets: [
          {
            repositories: [{ name: "catalog", packageNames: ["x"] }],
            template: {
              labelExprs: [{ key: "k", valueExpr: "target.repo.matches('(a)\\\\1') ? 'x' : 'y'" }],
            },
          },
        ],
      },
    });
    expect(result.stderr).toContain(
      "spec.targets[0].template.labelExprs[0].valueExpr: invalid regular expression",
    );
  });

  it("may not write unsafe file names", () => {
    const result = dryRun({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevisionResources",
      metadata: { name: "catalog.files.v1" },
      spec: {
        packageName: "files",
        repository: "catalog",
        workspaceName: "v1",
        resources: { Kptfile: kptfile("files"), "../escape.yaml": "x: 1\n", "/abs.yaml": "x: 1\n" },
      },
    });
    expect(result.stderr).toContain('"../escape.yaml" has a ".." segment');
    expect(result.stderr).toContain('"/abs.yaml" is an absolute path');
  });

  it("may not run an executable the administrator did not allow", () => {
    const result = dryRun(variant({ pipeline: { mutators: [{ exec: "/bin/sh" }] } }));
    expect(result.stderr).toContain(
      'spec.pipeline.mutators[0].exec: exec function "/bin/sh" is not allowed',
    );
  });

  it("may not take over another object's package and workspace", () => {
    const result = dryRun({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevision",
      metadata: { name: "mine" },
      spec: {
        packageName: "app",
        repository: "catalog",
        workspaceName: "v1",
        lifecycle: "Draft",
        source: { init: {} },
      },
    });
    expect(result.stderr).toContain(`already has workspace "v1": PackageRevision "${published}"`);
  });
});
