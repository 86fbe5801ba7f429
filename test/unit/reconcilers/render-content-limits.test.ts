import { runRender } from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind, PackageRevisionResourcesKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { configMap, current, draftRevision, labellingKptfile } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
// Read by the render (and the store) on each use: a per-file limit of 2000 bytes.
process.env.PORCH_PEPR_GIT_MAX_FILE_BYTES = "2000";
jest.setTimeout(30_000);

const files = { Kptfile: labellingKptfile("app"), "configmap.yaml": configMap("app") };

// Admission denies files over the git content limits; an edit made while the webhook was down
// reaches the controller, which refuses it the same way instead of rendering and committing it.
describe("runRender: files over the git content limits", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("are not rendered or committed; Rendered and Ready say which file and which limit", async () => {
    const d = await draftRevision(h, files);
    await runRender(h.ctx, d.pr, d.store);
    const pr = await current(h.cluster, PackageRevisionKind, d.pr);
    await h.cluster.patch(PackageRevisionResourcesKind, refOf(pr), {
      merge: { spec: { resources: { ...files, "big.yaml": `# ${"x".repeat(2000)}\n` } } },
    });

    await runRender(h.ctx, pr, d.store);

    const after = await current(h.cluster, PackageRevisionKind, pr);
    const expected = {
      status: "False",
      reason: "ContentTooLarge",
      message:
        'spec.resources: file "big.yaml" is 2003 bytes, over the per-file limit of 2000 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)',
    };
    expect(after.status?.conditions?.find(c => c.type === "Rendered")).toMatchObject(expected);
    expect(after.status?.conditions?.find(c => c.type === "Ready")).toMatchObject(expected);
    const inGit = await d.store.getPackageContent(d.key);
    expect(Object.keys(inGit.files).sort()).toEqual(["Kptfile", "configmap.yaml"]);
  });

  it("refuses rendered files over them, naming the file, and commits nothing of the render", async () => {
    // Under the limit as written; the labels the render adds take it over.
    const padded = configMap("app", "x".repeat(2000 - configMap("app", "").length));
    const d = await draftRevision(h, { ...files, "configmap.yaml": padded });

    await runRender(h.ctx, d.pr, d.store);

    const after = await current(h.cluster, PackageRevisionKind, d.pr);
    expect(after.status?.conditions?.find(c => c.type === "Rendered")).toMatchObject({
      status: "False",
      reason: "ContentTooLarge",
      message: expect.stringMatching(
        /^the rendered files: file "configmap\.yaml" is \d+ bytes, over the per-file limit of 2000 bytes \(PORCH_PEPR_GIT_MAX_FILE_BYTES\)$/,
      ),
    });
    const inGit = await d.store.getPackageContent(d.key);
    expect(inGit.files["configmap.yaml"]).toBe(padded);
  });
});
