import { createGitRepository, kptfile, registerRepository } from "../support/git";
import { createNamespace, deleteNamespace, getJson } from "../support/kubectl";
import { multiplyingFiles, multiplyingPipeline } from "../support/multiplying-package";
import {
  condition,
  createRevision,
  PR,
  rendered,
  setFiles,
  watcherPid,
} from "../support/package-revisions";
import { eventually } from "../support/wait";
import { Worker } from "node:worker_threads";
import { moduleBundle } from "../../hack/module/build";

// Issue 26's multiplying render through the real module: a tenant's ~1 KB edit whose
// apply-replacements doubles a resource 40 times. The built-in runs in a worker of the bundled
// module, within the heap its catalog entry gives it (support/e2e-catalog.ts), and ends there;
// another tenant's draft is rendered meanwhile and the watcher is never restarted.
let attacker: string;
let victim: string;
const IMAGE = "example.com/fns/e2e-multiplier:v1";

beforeAll(async () => {
  attacker = createNamespace("e2e-bounds-attacker");
  victim = createNamespace("e2e-bounds-victim");
  registerRepository(attacker, "mine", await createGitRepository("bounds-attacker"));
  registerRepository(victim, "mine", await createGitRepository("bounds-victim"));
});
afterAll(() => {
  deleteNamespace(attacker, ["packagerevisions", "repositories"]);
  deleteNamespace(victim, ["packagerevisions", "repositories"]);
});

it("ends a multiplying built-in at its heap bound while another tenant's draft renders", async () => {
  const pid = watcherPid();
  createRevision(attacker, "mine", "bomb", "v1", { init: { description: "bomb" } });
  await rendered(attacker, "mine.bomb.v1");
  setFiles(attacker, "mine.bomb.v1", {
    Kptfile: kptfile("bomb", multiplyingPipeline(IMAGE)),
    ...multiplyingFiles(40),
  });

  createRevision(victim, "mine", "calm", "v1", { init: { description: "victim" } });
  await rendered(victim, "mine.calm.v1");

  const failed = await eventually(
    "the bomb Rendered=False for its current files",
    () => {
      const pr = getJson<PR>("packagerevision", "mine.bomb.v1", attacker);
      const prr = getJson<{ metadata: { resourceVersion: string } }>(
        "packagerevisionresources",
        "mine.bomb.v1",
        attacker,
      );
      const cond = condition(pr, "Rendered");
      return cond?.status === "False" &&
        pr?.status?.observedPrrResourceVersion === prr?.metadata.resourceVersion
        ? cond
        : undefined;
    },
    110_000,
  );
  expect(failed.reason).toBe("FunctionMemoryLimit");
  expect(failed.message).toContain(
    `mutator 0 (${IMAGE}, runtime builtin): needed more than its maxMemory of 96 MiB and was stopped`,
  );
  expect(watcherPid()).toBe(pid);
}, 180_000);

// A worker of the pool runs the bundled module itself; what it loads counts in the watcher's
// memory. Loading Pepr and the capabilities cost each worker about 80 MB (issue 26's campaign).
it("a built-in worker of the bundle loads the built-ins, not Pepr or the capabilities", async () => {
  const worker = new Worker(
    `const { parentPort } = require("node:worker_threads");
     require(${JSON.stringify(moduleBundle)});
     parentPort.postMessage({ loaded: Object.keys(require.cache) });`,
    { eval: true, workerData: { role: "porch-pepr-builtin-functions" } },
  );
  const loaded = await new Promise<string[]>((resolve, reject) => {
    worker.on("message", (m: { loaded?: string[] }) => m.loaded && resolve(m.loaded));
    worker.on("error", reject);
  });
  await worker.terminate();
  expect(loaded).toContain(moduleBundle);
  expect(
    loaded.filter(path => /node_modules\/(pepr|kubernetes-fluent-client)\//.test(path)),
  ).toEqual([]);
});
