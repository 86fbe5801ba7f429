import { join } from "node:path";
import { parse } from "yaml";
import { repoRoot } from "../../hack/cluster/paths";
import { DEMO_BLUEPRINTS } from "../../hack/demo/packages";
import { functionsDir } from "../../hack/deploy/function-images";
import { createFunctionRuntime, renderPackage } from "../../lib/fn";
import { TEMPLATE_HASH_LABEL } from "../../lib/fn/pod";
import { FUNCTION_CATALOG } from "../support/e2e-catalog";
import { applyFunctionCatalog, catalogHolder } from "../support/function-catalog";
import { kptfile, registerRepository } from "../support/git";
import { createNamespace, getJson, kubectlOk, listJson } from "../support/kubectl";
import { condition, PR, rendered, yamlOf } from "../support/package-revisions";
import { eventually } from "../support/wait";
import { deployEnvironment, gitRepository } from "./environment";

// The function catalog governing the installed module: a PackageVariant's pipeline names the
// labeller image (hack/functions/labeller, built here and imported into the node), which no
// built-in runs; once the administrator's catalog maps it to the Pod runtime, the operator in
// its Pod renders the draft through a function Pod, without a restart. The same function then
// runs through the catalog's exec runtime. README, "Functions as Pods".

const env = deployEnvironment();
const FUNCTION_NAMESPACE = "porch-fn-system";
let ns = "";

const labeller = env.functionImages.labeller;
const labellerPattern = `${labeller.slice(0, labeller.lastIndexOf(":"))}:*`;

/** The administrator's catalog: the labeller image, any tag, as a Pod. */
const podCatalog = {
  functions: [
    {
      image: labellerPattern,
      runtime: "pod",
      pod: {
        entrypoint: ["/usr/local/bin/function"],
        resources: {
          requests: { cpu: "10m", memory: "32Mi" },
          limits: { cpu: "500m", memory: "128Mi" },
        },
        timeout: "20s",
        idle: "10m",
      },
    },
  ],
  pod: {
    namespace: FUNCTION_NAMESPACE,
    serviceAccountName: "porch-fn-runner",
    wrapperImage: env.functionImages.wrapper,
  },
};

/** A PackageVariant of base-ns whose pipeline runs the labeller with `config` first. */
function applyVariant(name: string, config: Record<string, string>): string {
  kubectlOk(
    ["apply", "-n", ns, "-f", "-"],
    JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "PackageVariant",
      metadata: { name },
      spec: {
        upstream: { repo: "fn-blueprints", package: "base-ns", revision: 2 },
        downstream: { repo: "fn-deployments", package: name },
        pipeline: { mutators: [{ name: "label", image: labeller, configMap: config }] },
      },
    }),
  );
  return `fn-deployments.${name}.packagevariant-1`;
}

/** The draft once its render has failed, with the Rendered condition's message. */
function renderFailed(name: string, reason: string): Promise<string> {
  return eventually(
    `${name} Rendered=False (${reason})`,
    () => {
      const c = condition(getJson<PR>("packagerevision", name, ns), "Rendered");
      return c?.status === "False" && c.reason === reason ? c.message : undefined;
    },
    120_000,
  );
}

interface RenderedResources {
  status?: {
    renderStatus?: {
      result?: { items?: { image?: string; runtime?: string; durationMs?: number }[] };
    };
  };
}

beforeAll(async () => {
  // As README, "Functions as Pods", says an administrator does once after npx pepr deploy.
  kubectlOk(["apply", "-f", join(repoRoot, "manifests", "function-pods.yaml")]);
  ns = createNamespace("fn-catalog");
  registerRepository(
    ns,
    "fn-blueprints",
    await gitRepository(env, "fn-blueprints", DEMO_BLUEPRINTS),
  );
  registerRepository(ns, "fn-deployments", await gitRepository(env, "fn-deployments"), {
    deployment: true,
  });
});

afterAll(() => {
  // The other deploy tests run with the built-in defaults.
  kubectlOk([
    "delete",
    "configmap",
    FUNCTION_CATALOG.name,
    "-n",
    FUNCTION_CATALOG.namespace,
    "--ignore-not-found",
  ]);
});

it("renders a PackageVariant's pipeline through a function Pod once the catalog names the image", async () => {
  const draft = applyVariant("team-x", { key: "team", value: "x" });
  // Not in the catalog (the built-in defaults only): a named failure, not a skip.
  const before = await renderFailed(draft, "FunctionUnavailable");
  expect(before).toContain(labeller);

  applyFunctionCatalog(podCatalog);
  // No restart, no edit: the catalog's change renders the draft again, now through a Pod.
  await rendered(ns, draft);
  const quota = yamlOf(ns, draft, "resourcequota.yaml");
  expect(quota.metadata.labels).toMatchObject({ team: "x" });
  expect(quota.metadata.namespace).toBe("team-x");
  const prr = getJson<RenderedResources>("packagerevisionresources", draft, ns);
  const run = prr?.status?.renderStatus?.result?.items?.find(item => item.image === labeller);
  expect(run?.runtime).toBe("pod");
  expect(typeof run?.durationMs).toBe("number");
  // The operator made the function Pod, in the namespace the catalog names.
  const pods = listJson<{ metadata: { labels: Record<string, string> } }>(
    "pods",
    FUNCTION_NAMESPACE,
  ).filter(pod => pod.metadata.labels[TEMPLATE_HASH_LABEL]);
  expect(pods.length).toBeGreaterThan(0);
}, 300_000);

it("ends a crashing function as a render failure naming the image, the runtime and the reason", async () => {
  const draft = applyVariant("team-crash", { mode: "crash" });
  const message = await renderFailed(draft, "RenderFailed");
  expect(message).toContain(labeller);
  expect(message).toContain("pod runtime");
  expect(message).toContain("FunctionFailed");
}, 300_000);

/** A package whose pipeline labels one ConfigMap team=y: the labeller, or set-labels. */
const labelledPackage = (image: string) => ({
  Kptfile: kptfile(
    "app",
    `pipeline:\n  mutators:\n    - image: ${image}\n      configMap: ${image === labeller ? "{key: team, value: y}" : "{team: y}"}\n`,
  ),
  "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n",
});

/** Median wall time of `runs` renders, for the README's cost per runtime (logged, not asserted). */
async function medianRenderMs(render: () => Promise<unknown>, runs = 10): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await render();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

it("runs the same function through the catalog's exec runtime", async () => {
  const holder = catalogHolder({
    functions: [
      {
        image: labellerPattern,
        runtime: "exec",
        executable: { path: join(functionsDir(), "labeller"), timeout: "20s" },
      },
    ],
  });
  const runtime = createFunctionRuntime({ catalog: holder });
  const output = await renderPackage(labelledPackage(labeller), { runtime });
  expect(output.error).toBeUndefined();
  expect(parse(output.files["cm.yaml"]).metadata.labels).toEqual({ team: "y" });
  expect(output.steps.map(step => step.runtime)).toEqual(["exec"]);

  const exec = await medianRenderMs(() => renderPackage(labelledPackage(labeller), { runtime }));
  const builtin = await medianRenderMs(() =>
    renderPackage(labelledPackage("gcr.io/kpt-fn/set-labels:v0.2.0"), { runtime }),
  );
  process.stderr.write(
    `[function-catalog] a one-function render, median of 10: builtin ${builtin.toFixed(1)} ms, exec ${exec.toFixed(1)} ms\n`,
  );
});
