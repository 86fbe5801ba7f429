import { execFileSync } from "node:child_process";
import {
  applyBasicAuthSecret,
  createGitRepository,
  gitServer,
  kptfile,
  registerRepository,
  revision,
  pushWithGit,
} from "../support/git";
import { createNamespace, deleteNamespace, getJson, kubectl } from "../support/kubectl";
import {
  condition,
  createRevision,
  files,
  killControllers,
  lifecycleReached,
  PR,
  publish,
  rendered,
  setFiles,
  setLifecycle,
  yamlOf,
} from "../support/package-revisions";
import { eventually } from "../support/wait";

// The whole lifecycle through kubectl: init, edit, render, propose, publish, clone, upgrade with
// a kept local edit and a reported conflict, deletion; with the controllers killed mid-step.
let ns: string;
let blueprintsUrl: string;
let deploymentsUrl: string;
const refs = (url: string) => execFileSync("git", ["ls-remote", url], { encoding: "utf8" });

const pipeline = `pipeline:\n  mutators:\n    - name: set-namespace\n      image: gcr.io/kpt-fn/set-namespace:v0.4.1\n      configMap:\n        namespace: web\n`;
const deployment = (replicas: number) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: ${replicas}\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n`;
const configMap = (color: string, size: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config # colours and sizes\ndata:\n  color: ${color}\n  size: ${size}\n`;

beforeAll(async () => {
  ns = createNamespace("e2e-lifecycle");
  blueprintsUrl = await createGitRepository("blueprints");
  deploymentsUrl = await createGitRepository("deployments");
  registerRepository(ns, "blueprints", blueprintsUrl);
  registerRepository(ns, "deployments", deploymentsUrl, { deployment: true });
});
afterAll(() => deleteNamespace(ns));

describe("a blueprint", () => {
  it("is initialised as a Draft with a Kptfile", async () => {
    createRevision(ns, "blueprints", "web", "v1", { init: { description: "a web server" } });
    await rendered(ns, "blueprints.web.v1");
    expect(files(ns, "blueprints.web.v1").Kptfile).toContain("description: a web server");
    expect(refs(blueprintsUrl)).toContain("refs/heads/drafts/web/v1");
  });

  it("renders an edit of its files with set-namespace", async () => {
    const edit = setFiles(ns, "blueprints.web.v1", {
      Kptfile: kptfile("web", pipeline),
      "deployment.yaml": deployment(1),
      "cm.yaml": configMap("blue", "small"),
    });
    expect(edit.stderr).toBe("");
    await rendered(ns, "blueprints.web.v1");
    expect(yamlOf(ns, "blueprints.web.v1", "deployment.yaml").metadata.namespace).toBe("web");
    expect(files(ns, "blueprints.web.v1")["cm.yaml"]).toContain(
      "name: web-config # colours and sizes",
    );
  });

  it("is proposed and published: revision 1, tag web/v1, latest", async () => {
    expect(setLifecycle(ns, "blueprints.web.v1", "Published").stderr).toContain(
      "a Draft must be Proposed before it can be Published",
    );
    const pr = await publish(ns, "blueprints.web.v1");
    expect(pr.status?.revision).toBe(1);
    await eventually("latest", () =>
      getJson<PR>("packagerevision", "blueprints.web.v1", ns)?.metadata.labels?.[
        "porch.kpt.dev/latest-revision"
      ] === "true"
        ? true
        : undefined,
    );
    expect(refs(blueprintsUrl)).toMatch(/refs\/tags\/web\/v1\n/);
    expect(refs(blueprintsUrl)).not.toContain("drafts/web/v1");
  });

  it("refuses impossible moves and edits of published files at admission", () => {
    expect(setLifecycle(ns, "blueprints.web.v1", "Draft").stderr).toContain(
      "a Published revision cannot go back to Draft",
    );
    const edit = setFiles(ns, "blueprints.web.v1", { Kptfile: kptfile("web") });
    expect(edit.stderr).toContain("the files of a Published revision are read-only");
    const created = kubectl(
      ["apply", "-n", ns, "-f", "-"],
      JSON.stringify({
        apiVersion: "porch.kpt.dev/v1alpha2",
        kind: "PackageRevision",
        metadata: { name: "blueprints.web.v9" },
        spec: {
          packageName: "web",
          repository: "blueprints",
          workspaceName: "v9",
          lifecycle: "Published",
          source: { init: {} },
        },
      }),
    );
    expect(created.stderr).toContain(
      "a new package revision starts as Draft or Proposed, not Published",
    );
  });
});

describe("a deployment cloned from it", () => {
  it("is cloned with upstream and upstreamLock, rendered, edited locally and published", async () => {
    createRevision(ns, "deployments", "web-east", "v1", {
      cloneFrom: { upstreamRef: { name: "blueprints.web.v1" } },
    });
    const pr = await rendered(ns, "deployments.web-east.v1");
    expect(pr.status?.creationSource).toBe("clone");
    expect(pr.status?.upstreamLock?.git?.ref).toBe("web/v1");
    const kpt = yamlOf(ns, "deployments.web-east.v1", "Kptfile");
    expect(kpt.upstream.git).toMatchObject({
      repo: blueprintsUrl,
      directory: "web",
      ref: "web/v1",
    });
    expect(files(ns, "deployments.web-east.v1")["package-context.yaml"]).toContain(
      "name: web-east",
    );
    const local = { ...files(ns, "deployments.web-east.v1") };
    local["cm.yaml"] = local["cm.yaml"]
      .replace("color: blue", "color: red")
      .replace("size: small", "size: large");
    setFiles(ns, "deployments.web-east.v1", local);
    await rendered(ns, "deployments.web-east.v1");
    await publish(ns, "deployments.web-east.v1");
  });

  it("gets upstream v2 through an upgrade that keeps the local edit and reports the conflict", async () => {
    createRevision(ns, "blueprints", "web", "v2", { copyFrom: { name: "blueprints.web.v1" } });
    await rendered(ns, "blueprints.web.v2");
    const v2 = { ...files(ns, "blueprints.web.v2") };
    v2["cm.yaml"] = v2["cm.yaml"].replace("color: blue", "color: green");
    v2["deployment.yaml"] = v2["deployment.yaml"].replace("replicas: 1", "replicas: 3");
    setFiles(ns, "blueprints.web.v2", v2);
    await rendered(ns, "blueprints.web.v2");
    expect((await publish(ns, "blueprints.web.v2")).status?.revision).toBe(2);

    createRevision(ns, "deployments", "web-east", "v2", {
      upgrade: {
        oldUpstream: { name: "blueprints.web.v1" },
        newUpstream: { name: "blueprints.web.v2" },
        currentPackage: { name: "deployments.web-east.v1" },
      },
    });
    const pr = await rendered(ns, "deployments.web-east.v2");
    const cm = yamlOf(ns, "deployments.web-east.v2", "cm.yaml");
    expect(cm.data).toEqual({ color: "green", size: "large" });
    expect(yamlOf(ns, "deployments.web-east.v2", "deployment.yaml").spec.replicas).toBe(3);
    const upgraded = condition(pr, "Upgraded");
    expect(upgraded?.reason).toBe("MergedWithConflicts");
    expect(upgraded?.message).toContain("data.color");
    expect(pr.status?.upstreamLock?.git?.ref).toBe("web/v2");
    expect((await publish(ns, "deployments.web-east.v2")).status?.revision).toBe(2);
  });

  it("is deleted only through DeletionProposed", async () => {
    kubectl(["delete", "packagerevision", "deployments.web-east.v1", "-n", ns, "--wait=false"]);
    const blocked = await eventually("deletion blocked", () => {
      const pr = getJson<PR>("packagerevision", "deployments.web-east.v1", ns);
      return condition(pr, "Ready")?.reason === "DeletionBlocked" ? pr : undefined;
    });
    expect(blocked.metadata.deletionTimestamp).toBeDefined();
    expect(refs(deploymentsUrl)).toContain("refs/tags/web-east/v1");
    setLifecycle(ns, "deployments.web-east.v1", "DeletionProposed");
    await eventually("deleted", () =>
      getJson("packagerevision", "deployments.web-east.v1", ns) ? undefined : true,
    );
    expect(refs(deploymentsUrl)).not.toContain("refs/tags/web-east/v1");
    expect(refs(deploymentsUrl)).toContain("refs/tags/web-east/v2");
  });
});

describe("with the controllers killed in the middle", () => {
  it("creates exactly one draft and finishes the render", async () => {
    createRevision(ns, "deployments", "web-west", "v1", {
      cloneFrom: { upstreamRef: { name: "blueprints.web.v2" } },
    });
    killControllers();
    await rendered(ns, "deployments.web-west.v1");
    const drafts = refs(deploymentsUrl)
      .split("\n")
      .filter(l => l.includes("web-west"));
    expect(drafts).toEqual([expect.stringMatching(/\trefs\/heads\/drafts\/web-west\/v1$/)]);
  });

  it("publishes exactly once", async () => {
    setLifecycle(ns, "deployments.web-west.v1", "Proposed");
    await lifecycleReached(ns, "deployments.web-west.v1", "Proposed");
    setLifecycle(ns, "deployments.web-west.v1", "Published");
    killControllers();
    const pr = await lifecycleReached(ns, "deployments.web-west.v1", "Published");
    expect(pr.status?.revision).toBe(1);
    expect(
      refs(deploymentsUrl)
        .split("\n")
        .filter(l => l.includes("web-west")),
    ).toEqual([expect.stringMatching(/\trefs\/tags\/web-west\/v1$/)]);
  });
});

describe("render failures", () => {
  it("keep the last good content in git and say which function could not run", async () => {
    createRevision(ns, "blueprints", "failing", "v1", { init: { description: "render failures" } });
    await rendered(ns, "blueprints.failing.v1");
    const good = refs(blueprintsUrl)
      .split("\n")
      .find(l => l.endsWith("refs/heads/drafts/failing/v1"));
    const starlark = `pipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/starlark:v0.4.3\n`;
    setFiles(ns, "blueprints.failing.v1", {
      Kptfile: kptfile("failing", starlark),
      "cm.yaml": configMap("x", "y"),
    });
    const failed = await eventually("Rendered=False", () => {
      const pr = getJson<PR>("packagerevision", "blueprints.failing.v1", ns);
      return condition(pr, "Rendered")?.status === "False" ? condition(pr, "Rendered") : undefined;
    });
    expect(failed?.reason).toBe("FunctionUnavailable");
    expect(failed?.message).toContain(
      'no runtime can run function image "gcr.io/kpt-fn/starlark:v0.4.3"',
    );
    expect(failed?.message).toContain("set-namespace");
    const prr = getJson<{ status?: { renderStatus?: { error?: string } } }>(
      "packagerevisionresources",
      "blueprints.failing.v1",
      ns,
    );
    expect(prr?.status?.renderStatus?.error).toContain("starlark");
    expect(
      refs(blueprintsUrl)
        .split("\n")
        .find(l => l.endsWith("refs/heads/drafts/failing/v1")),
    ).toBe(good);
  });

  it("push the content anyway with porch.kpt.dev/push-on-render-failure", async () => {
    const before = refs(blueprintsUrl)
      .split("\n")
      .find(l => l.endsWith("refs/heads/drafts/failing/v1"));
    kubectl([
      "annotate",
      "packagerevision",
      "blueprints.failing.v1",
      "-n",
      ns,
      "porch.kpt.dev/push-on-render-failure=true",
    ]);
    const current = files(ns, "blueprints.failing.v1");
    setFiles(ns, "blueprints.failing.v1", { ...current, "cm.yaml": configMap("pushed", "y") });
    await eventually("pushed", () => {
      const now = refs(blueprintsUrl)
        .split("\n")
        .find(l => l.endsWith("refs/heads/drafts/failing/v1"));
      return now !== before ? true : undefined;
    });
  });
});

describe("a clone from a git URL", () => {
  it("reads a directory at a tag of a repository that needs credentials", async () => {
    const server = gitServer(true);
    const url = await createGitRepository(
      "raw",
      [
        {
          name: "catalog/web",
          revisions: [
            revision("v1", { Kptfile: kptfile("web"), "deployment.yaml": deployment(2) }),
          ],
        },
      ],
      true,
    );
    applyBasicAuthSecret(ns, "raw-creds", server.credentials ?? {});
    createRevision(ns, "deployments", "web-raw", "v1", {
      cloneFrom: {
        type: "git",
        git: {
          repo: url,
          ref: "catalog/web/v1",
          directory: "catalog/web",
          secretRef: { name: "raw-creds" },
        },
      },
    });
    await rendered(ns, "deployments.web-raw.v1");
    expect(yamlOf(ns, "deployments.web-raw.v1", "deployment.yaml").spec.replicas).toBe(2);
    expect(yamlOf(ns, "deployments.web-raw.v1", "Kptfile").upstreamLock.git).toMatchObject({
      repo: url,
      directory: "catalog/web",
      ref: "catalog/web/v1",
    });
  });
});

describe("unsafe files and exec functions", () => {
  it("an edit with ../escape.yaml and a NUL in a file name is denied, naming both", async () => {
    createRevision(ns, "blueprints", "unsafe", "v1", { init: { description: "unsafe names" } });
    await rendered(ns, "blueprints.unsafe.v1");
    const result = setFiles(ns, "blueprints.unsafe.v1", {
      ...files(ns, "blueprints.unsafe.v1"),
      "../escape.yaml": configMap("a", "b"),
      "a\u0000b.yaml": configMap("c", "d"),
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("spec.resources has unsafe file names:");
    expect(result.stderr).toContain('"../escape.yaml" has a ".." segment');
    expect(result.stderr).toContain('"a\\u0000b.yaml" contains a control or invisible character');
  });

  it("runs an exec function the function catalog maps to an executable, on an edit", async () => {
    const identity = `pipeline:\n  mutators:\n    - exec: e2e-identity\n`;
    const edit = setFiles(ns, "blueprints.unsafe.v1", {
      Kptfile: kptfile("unsafe", identity),
      "cm.yaml": configMap("green", "big"),
    });
    expect(edit.stderr).toBe("");
    const pr = await rendered(ns, "blueprints.unsafe.v1");
    expect(condition(pr, "Rendered")?.message).toBe("rendered 1 function(s)");
  });

  it("a clone whose git content has an unsafe file name is Ready=False and commits nothing", async () => {
    const url = await createGitRepository("hostile");
    pushWithGit(url, {
      "names/Kptfile": kptfile("names"),
      "names/bell\u0007.yaml": configMap("a", "b"),
      "exec/Kptfile": kptfile("exec", `pipeline:\n  mutators:\n    - exec: /bin/sh\n`),
      "exec/cm.yaml": configMap("a", "b"),
    });
    const clone = (pkg: string) =>
      createRevision(ns, "deployments", `hostile-${pkg}`, "v1", {
        cloneFrom: { type: "git", git: { repo: url, ref: "main", directory: pkg } },
      });
    clone("names");
    const ready = await eventually("Ready=False", () => {
      const pr = getJson<PR>("packagerevision", "deployments.hostile-names.v1", ns);
      return condition(pr, "Ready")?.status === "False" ? condition(pr, "Ready") : undefined;
    });
    expect(ready?.reason).toBe("UnsafeFileNames");
    expect(ready?.message).toContain(
      '"bell\\u0007.yaml" contains a control or invisible character',
    );
    expect(refs(deploymentsUrl)).not.toContain("hostile-names");

    clone("exec");
    const denied = await eventually("Rendered=False", () => {
      const pr = getJson<PR>("packagerevision", "deployments.hostile-exec.v1", ns);
      return condition(pr, "Rendered")?.status === "False" ? condition(pr, "Rendered") : undefined;
    });
    expect(denied?.reason).toBe("ExecDenied");
    expect(denied?.message).toContain(
      `exec function "/bin/sh" is not allowed: the function catalog has no entry for it`,
    );
  });
});
