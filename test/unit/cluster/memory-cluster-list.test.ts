import { SecretKind } from "../../../lib/cluster/kinds";
import { MemoryCluster } from "../../support/memory-cluster";
import { PR, PV, rejection } from "./helpers";

const names = (objects: { metadata?: { name?: string } }[]) => objects.map(o => o.metadata?.name);

async function revisions() {
  const cluster = new MemoryCluster();
  const revision = (
    namespace: string,
    name: string,
    labels: Record<string, string>,
    repo: string,
  ) => cluster.create(PR, { metadata: { namespace, name, labels }, spec: { repository: repo } });
  await revision("a", "r1", { env: "prod", tier: "web" }, "blueprints");
  await revision("a", "r2", { env: "dev" }, "blueprints");
  await revision("b", "r3", { env: "prod" }, "deployments");
  await revision("b", "r4", {}, "blueprints");
  return cluster;
}

describe("MemoryCluster: list", () => {
  it("lists every namespace or one, in namespace/name order, with apiVersion and kind", async () => {
    const cluster = await revisions();
    const all = await cluster.list(PR);
    expect(names(all)).toEqual(["r1", "r2", "r3", "r4"]);
    expect(all[0]).toMatchObject({ apiVersion: "porch.kpt.dev/v1alpha2", kind: "PackageRevision" });
    expect(names(await cluster.list(PR, { namespace: "b" }))).toEqual(["r3", "r4"]);
    expect(await cluster.list(PV)).toEqual([]);
  });

  it.each<[Record<string, string> | string, string[]]>([
    [{ env: "prod" }, ["r1", "r3"]],
    [{ env: "prod", tier: "" }, ["r1"]],
    ["env=prod", ["r1", "r3"]],
    ["env==prod,tier", ["r1"]],
    ["env!=prod", ["r2", "r4"]],
    ["!env", ["r4"]],
    ["env", ["r1", "r2", "r3"]],
    ["env in (dev, prod),!tier", ["r2", "r3"]],
    ["env notin (prod)", ["r2", "r4"]],
    ["", ["r1", "r2", "r3", "r4"]],
  ])("selects labels %j", async (labels, expected) => {
    const cluster = await revisions();
    expect(names(await cluster.list(PR, { labels }))).toEqual(expected);
  });

  it.each<[Record<string, string> | string, string[]]>([
    [{ "spec.repository": "blueprints" }, ["r1", "r2", "r4"]],
    ["spec.repository=blueprints,metadata.namespace=b", ["r4"]],
    ["spec.repository!=blueprints", ["r3"]],
    ["metadata.name==r2", ["r2"]],
    ["spec.lifecycle=", ["r1", "r2", "r3", "r4"]],
  ])("selects fields %j", async (fields, expected) => {
    const cluster = await revisions();
    expect(names(await cluster.list(PR, { fields }))).toEqual(expected);
  });

  it("refuses malformed selectors and fields the kind does not make selectable", async () => {
    const cluster = await revisions();
    for (const options of [
      { labels: "env=(prod" },
      { labels: "a b" },
      { fields: "spec.repository" },
      { fields: { "spec.repository": "" } },
      { fields: "spec.readinessGates=x" },
    ])
      await expect(cluster.list(PR, options)).rejects.toEqual(rejection(400, "BadRequest"));
    await expect(cluster.list(SecretKind, { fields: "type=Opaque" })).resolves.toEqual([]);
  });
});
