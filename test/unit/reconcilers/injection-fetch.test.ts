// Config injection reads, per injection point, the candidates in injector order up to the first
// that exists (only that one is injected), and refuses an object larger than a package may be.
import { PackageRevision, PackageVariant } from "../../../crd-types";
import { ConfigMapKind } from "../../../lib/cluster/kinds";
import { mutated } from "../../../capabilities/shared/variant-mutations";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { labellingKptfile, NS, seed } from "./fixtures";

const point = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/local-config: "true"\ndata:\n  db: unset\n`;

describe("the objects config injection reads", () => {
  let h: TestOperator;
  beforeEach(async () => {
    h = await testOperator();
    h.cluster.serve(ConfigMapKind, { statusSubresource: false });
  });
  afterEach(() => {
    delete process.env.PORCH_PEPR_GIT_MAX_PACKAGE_BYTES;
    return h.close();
  });

  /** A variant with 100 injectors, of which the first and the last name existing ConfigMaps. */
  async function variant(): Promise<PackageVariant> {
    for (const name of ["injector-0", "injector-99"])
      await seed(h.cluster, ConfigMapKind, {
        metadata: { name, namespace: NS },
        data: { db: `db.${name}.example` },
      });
    return {
      metadata: { name: "pv", namespace: NS },
      spec: {
        upstream: { repo: "blueprints", package: "base", revision: "1" },
        downstream: { repo: "deployments", package: "app" },
        injectors: Array.from({ length: 100 }, (_, i) => ({
          kind: "ConfigMap",
          name: `injector-${i}`,
        })),
      },
    } as PackageVariant;
  }

  const downstream = {
    metadata: { name: "d", namespace: NS },
    spec: { repository: "deployments" },
  } as PackageRevision;
  const files = {
    Kptfile: labellingKptfile("app"),
    "a.yaml": point("a"),
    "b.yaml": point("b"),
  };

  it("reads one object for two points whose first injector exists, not 100 per point", async () => {
    const pv = await variant();
    const calls = h.callsFrom();
    const { result } = await mutated(h.ctx, pv, downstream, files);
    expect(calls().filter(call => call.startsWith("get ConfigMap"))).toEqual([
      `get ConfigMap ${NS}/injector-0`,
    ]);
    expect(result.files["a.yaml"]).toContain("db: db.injector-0.example");
    expect(result.files["b.yaml"]).toContain("db: db.injector-0.example");
  });

  it("refuses an injected object larger than a package may be, naming it and the limit", async () => {
    const pv = await variant();
    process.env.PORCH_PEPR_GIT_MAX_PACKAGE_BYTES = "100";
    const { result } = await mutated(h.ctx, pv, downstream, files);
    expect(result.files["a.yaml"]).toContain("db: unset");
    expect(result.files.Kptfile).toMatch(
      /injected ConfigMap "injector-0" is \d+ bytes, over the per-package limit of 100 bytes \(PORCH_PEPR_GIT_MAX_PACKAGE_BYTES\)/,
    );
  });
});
