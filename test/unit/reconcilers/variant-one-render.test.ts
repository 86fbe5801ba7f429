import { execFileSync } from "node:child_process";
import { metricsCollector } from "pepr";
import { fileURLToPath } from "node:url";
import {
  PackageRevisionKind,
  PackageRevisionResourcesKind,
  PackageVariantKind,
} from "../../../crd-types";
import { ConfigMapKind } from "../../../lib/cluster/kinds";
import { SOURCE_MUTATIONS_ANNOTATION } from "../../../lib/package-variant";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS, seed } from "./fixtures";
import { baseFiles, settleVariant, variantDraftName, variantScene } from "./scenes";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const endpoints = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/local-config: "true"\ndata:\n  db: unset\n`;

/**
 * A variant with a package context key, a prepended mutator and an injected ConfigMap (what
 * Nephio users run): its draft's source applies the mutations before its render, so the draft
 * is rendered once and committed once, and the variant's check finds nothing to write.
 */
describe("a PackageVariant's new draft with mutations", () => {
  let h: TestOperator;

  beforeEach(async () => {
    h = await testOperator();
    h.cluster.serve(ConfigMapKind, { statusSubresource: false });
  });
  afterEach(() => h.close());

  /** pepr_package_renders_total, as the module serves it on /metrics. */
  async function renders(): Promise<number> {
    const line = (await metricsCollector.getMetrics())
      .split("\n")
      .find(l => l.startsWith("pepr_package_renders_total "));
    return Number(line?.split(" ")[1]);
  }

  /** The subjects of the commits `branch` adds to main in the repository at `url`. */
  function commitsOf(url: string, branch: string): string[] {
    const gitDir = fileURLToPath(url);
    const log = execFileSync(
      "git",
      ["--git-dir", gitDir, "log", "--format=%s", `main..${branch}`],
      {
        encoding: "utf8",
      },
    );
    return log.split("\n").filter(Boolean);
  }

  it("renders and commits it once; the variant's check writes nothing", async () => {
    await seed(h.cluster, ConfigMapKind, {
      metadata: { name: "eu-endpoints", namespace: NS },
      data: { db: "db.eu.example" },
    });
    const scene = await variantScene(h, {
      upstreamFiles: { ...baseFiles, "endpoints.yaml": endpoints },
      deployments: { deployment: true },
      variant: {
        packageContext: { data: { region: "eu" } },
        pipeline: {
          mutators: [{ name: "ns", image: "set-namespace:v0.4", configMap: { namespace: "eu" } }],
        },
        injectors: [{ kind: "ConfigMap", name: "eu-endpoints" }],
      },
    });

    const calls = h.callsFrom();
    const rendersBefore = await renders();
    await settleVariant(h);

    const pv = await current(h.cluster, PackageVariantKind, scene.pv);
    expect(pv.status?.conditions?.find(c => c.type === "Ready")).toMatchObject({
      status: "True",
    });
    const draft = await current(h.cluster, PackageRevisionKind, {
      metadata: { name: variantDraftName, namespace: NS },
    });
    expect(draft.metadata?.annotations?.[SOURCE_MUTATIONS_ANNOTATION]).toBe(pv.metadata?.uid);
    const prr = await current(h.cluster, PackageRevisionResourcesKind, draft);
    const files = prr.spec?.resources ?? {};
    expect(files["package-context.yaml"]).toContain("region: eu");
    expect(files["endpoints.yaml"]).toContain("db: db.eu.example");
    expect(files["cm.yaml"]).toContain("namespace: eu");
    expect(files["cm.yaml"]).toContain("env: dev");

    // One render, one commit on the draft branch.
    expect((await renders()) - rendersBefore).toBe(1);
    expect(
      commitsOf(scene.deployments.spec?.git?.repo ?? "", "drafts/app/packagevariant-1"),
    ).toEqual([`clone ${variantDraftName}`]);
    // The variant's check found the files as it wants them: it wrote none.
    const fileWrites = calls().filter(
      c => c === `apply PackageRevisionResources ${NS}/${variantDraftName}`,
    );
    expect(fileWrites).toHaveLength(1);
  });
});
