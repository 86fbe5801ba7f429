import type { PackageVariantSet } from "../../../crd-types";
import { SetIndex } from "../../../lib/package-variant-set";

const set = (
  name: string,
  namespace: string,
  targets: unknown[],
  upstream = { repo: "b", package: "app" },
) =>
  ({
    metadata: { name, namespace, uid: `uid-${name}` },
    spec: { upstream, targets },
  }) as PackageVariantSet;

describe("SetIndex", () => {
  const index = new SetIndex();
  index.upsert(set("list", "ns", [{ repositories: [{ name: "r1" }] }]), "ns/list");
  index.upsert(
    set("selector", "ns", [{ repositorySelector: { matchLabels: { a: "b" } } }]),
    "ns/selector",
  );
  index.upsert(
    set("objects", "ns", [{ objectSelector: { apiVersion: "v1", kind: "ConfigMap" } }], {
      repo: "b",
      package: "other",
    }),
    "ns/objects",
  );
  index.upsert(set("elsewhere", "other", [{ repositories: [{ name: "r1" }] }]), "other/elsewhere");
  index.setDownstreamRepos("ns/list", ["r1"]);

  it("maps an upstream revision to the sets that use that package, in its namespace", () => {
    expect(index.forUpstream("ns", "b", "app").sort()).toEqual(["ns/list", "ns/selector"]);
    expect(index.forUpstream("ns", "b", "nope")).toEqual([]);
  });

  it("maps a Repository to selecting sets and to sets that render into it", () => {
    expect(index.forRepository("ns", "r1").sort()).toEqual(["ns/list", "ns/selector"]);
    expect(index.forRepository("ns", "r2")).toEqual(["ns/selector"]);
  });

  it("maps selected objects by kind and namespace, and lists the kinds to watch", () => {
    expect(index.forObject("ns", "v1", "ConfigMap")).toEqual(["ns/objects"]);
    expect(index.forObject("other", "v1", "ConfigMap")).toEqual([]);
    expect([...index.objectKinds()]).toEqual(["v1/ConfigMap"]);
  });

  it("finds a set by the UID its PackageVariants carry, until it is removed", () => {
    expect(index.keyOfUid("uid-list")).toBe("ns/list");
    index.remove("ns/list", "uid-list");
    expect(index.keyOfUid("uid-list")).toBeUndefined();
    expect(index.forUpstream("ns", "b", "app")).toEqual(["ns/selector"]);
  });
});
