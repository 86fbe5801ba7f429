import { createGitRepository, kptfile, registerRepository } from "../support/git";
import { E2E_CATALOG_ENTRIES, e2eCatalog, FUNCTION_CATALOG } from "../support/e2e-catalog";
import { applyFunctionCatalog } from "../support/function-catalog";
import {
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  listJson,
} from "../support/kubectl";
import {
  condition,
  createRevision,
  PR,
  rendered,
  setFiles,
  yamlOf,
} from "../support/package-revisions";
import { eventually } from "../support/wait";

// The administrator's function catalog (docs/function-catalog.md) through the real module: a
// change of the ConfigMap reaches the controllers and the webhook without a restart. The other
// test files run against the same module, so every catalog applied here keeps the e2e entries
// (support/e2e-catalog.ts), and the last test file to finish puts the e2e catalog back.
let ns: string;
const IMAGE = "example.com/fns/e2e-labeller:v1.2.0";
/** Where the test's broken entry lands: after the e2e entries and MAPPING. */
const BROKEN = `functions[${E2E_CATALOG_ENTRIES.length + 1}]`;
const MAPPING = {
  image: "example.com/fns/e2e-labeller:v1.*",
  runtime: "builtin",
  builtin: "set-labels",
};
const settings = (value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  k: ${value}\n`;
const labelling = (image: string) =>
  `pipeline:\n  mutators:\n    - image: ${image}\n      configMap:\n        team: a\n`;

/** The revision's Rendered condition once it says `status` for its current files. */
function renderedAs(name: string, status: "True" | "False") {
  return eventually(`${name} Rendered=${status}`, () => {
    const pr = getJson<PR>("packagerevision", name, ns);
    const prr = getJson<{ metadata: { resourceVersion: string } }>(
      "packagerevisionresources",
      name,
      ns,
    );
    const rendered = condition(pr, "Rendered");
    return rendered?.status === status &&
      pr?.status?.observedPrrResourceVersion === prr?.metadata.resourceVersion
      ? rendered
      : undefined;
  });
}

interface FunctionResultItem {
  image?: string;
  runtime?: string;
  durationMs?: unknown;
  exitCode?: number;
}

const resultItems = (name: string): FunctionResultItem[] =>
  getJson<{ status?: { renderStatus?: { result?: { items?: FunctionResultItem[] } } } }>(
    "packagerevisionresources",
    name,
    ns,
  )?.status?.renderStatus?.result?.items ?? [];

/** A server-side dry run of a PackageVariant running `exec`: the webhook's answer. */
const variantRunning = (exec: string) =>
  kubectl(
    ["apply", "--dry-run=server", "-n", ns, "-f", "-"],
    JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "PackageVariant",
      metadata: { name: "runs-exec" },
      spec: {
        upstream: { repo: "fns", package: "labelled", workspaceName: "v1" },
        downstream: { repo: "fns", package: "copy" },
        pipeline: { mutators: [{ exec }] },
      },
    }),
  );

beforeAll(async () => {
  ns = createNamespace("e2e-catalog");
  registerRepository(ns, "fns", await createGitRepository("function-catalog"));
});
afterAll(() => {
  applyFunctionCatalog(e2eCatalog());
  deleteNamespace(ns, ["packagerevisions", "repositories"]);
});

describe("the function catalog", () => {
  it("runs an image no runtime could run once the administrator maps it: no restart, no edit", async () => {
    applyFunctionCatalog(e2eCatalog());
    createRevision(ns, "fns", "labelled", "v1", { init: { description: "catalog" } });
    await rendered(ns, "fns.labelled.v1");
    setFiles(ns, "fns.labelled.v1", {
      Kptfile: kptfile("labelled", labelling(IMAGE)),
      "settings.yaml": settings("v1"),
    });
    const failed = await renderedAs("fns.labelled.v1", "False");
    expect(failed.reason).toBe("FunctionUnavailable");
    expect(failed.message).toContain(`no runtime can run function image "${IMAGE}"`);

    applyFunctionCatalog(e2eCatalog([MAPPING]));
    await renderedAs("fns.labelled.v1", "True");
    expect(yamlOf(ns, "fns.labelled.v1", "settings.yaml").metadata.labels).toEqual({ team: "a" });
    const [result] = resultItems("fns.labelled.v1");
    expect(result).toMatchObject({ image: IMAGE, runtime: "builtin", exitCode: 0 });
    expect(typeof result.durationMs).toBe("number");
  });

  it("keeps the last valid catalog when a new one is invalid, and says why where it matters", async () => {
    applyFunctionCatalog(e2eCatalog([MAPPING]));
    const broken = {
      image: "example.com/fns/e2e-other:*",
      runtime: "exec",
      executable: { path: "/usr/bin/cat", timeout: "soon" },
    };
    applyFunctionCatalog(e2eCatalog([MAPPING, broken]));
    const event = await eventually("a FunctionCatalogInvalid event on the ConfigMap", () =>
      listJson<{
        type: string;
        reason: string;
        message: string;
        involvedObject: { name: string };
      }>("events", FUNCTION_CATALOG.namespace).find(
        e =>
          e.reason === "FunctionCatalogInvalid" &&
          e.involvedObject.name === FUNCTION_CATALOG.name &&
          e.message.includes(`${BROKEN}.executable.timeout`),
      ),
    );
    expect(event.type).toBe("Warning");
    expect(event.message).toContain(`${BROKEN}.executable.timeout: must be a duration like 30s`);

    // The controllers refused it (they recorded the event): an edit renders under the last valid one.
    setFiles(ns, "fns.labelled.v1", {
      Kptfile: kptfile("labelled", labelling(IMAGE)),
      "settings.yaml": settings("v2"),
    });
    await renderedAs("fns.labelled.v1", "True");
    expect(yamlOf(ns, "fns.labelled.v1", "settings.yaml")).toMatchObject({
      metadata: { labels: { team: "a" } },
      data: { k: "v2" },
    });

    // A function only the refused entry would run fails, naming that entry and its problem.
    createRevision(ns, "fns", "other", "v1", { init: { description: "needs the broken entry" } });
    await rendered(ns, "fns.other.v1");
    setFiles(ns, "fns.other.v1", {
      Kptfile: kptfile("other", labelling("example.com/fns/e2e-other:v1")),
      "settings.yaml": settings("v1"),
    });
    const failed = await renderedAs("fns.other.v1", "False");
    expect(failed.reason).toBe("FunctionUnavailable");
    expect(failed.message).toContain(
      `its entry ${BROKEN} for "example.com/fns/e2e-other:v1" is invalid: ${BROKEN}.executable.timeout: must be a duration like 30s`,
    );
  });

  it("governs admission's exec checks too, and only the module's own ConfigMap counts", async () => {
    applyFunctionCatalog(e2eCatalog());
    const denial =
      'exec function "e2e-stamper" is not allowed: the function catalog has no entry for it';
    expect(variantRunning("e2e-stamper").stderr).toContain(denial);

    applyFunctionCatalog(
      e2eCatalog([{ exec: "e2e-stamper", runtime: "exec", executable: { path: "/usr/bin/cat" } }]),
    );
    await eventually("the webhook admits the cataloged exec function", () =>
      variantRunning("e2e-stamper").code === 0 ? true : undefined,
    );

    // A ConfigMap of the same name anywhere else is not read. The real catalog changes after it,
    // and the webhook sees that change: had it read the other one, it would have seen it first.
    kubectlOk(
      ["apply", "-n", ns, "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: FUNCTION_CATALOG.name },
        data: {
          "catalog.yaml": JSON.stringify({
            functions: [{ exec: "/bin/sh", runtime: "exec", executable: { path: "/bin/sh" } }],
          }),
        },
      }),
    );
    applyFunctionCatalog(
      e2eCatalog([{ exec: "e2e-marker", runtime: "exec", executable: { path: "/usr/bin/cat" } }]),
    );
    await eventually("the webhook admits the marker", () =>
      variantRunning("e2e-marker").code === 0 ? true : undefined,
    );
    expect(variantRunning("/bin/sh").stderr).toContain(
      'exec function "/bin/sh" is not allowed: the function catalog has no entry for it',
    );
    expect(variantRunning("e2e-stamper").stderr).toContain(denial);
  });
});
