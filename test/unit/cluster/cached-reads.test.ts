import { SecretKind } from "../../../lib/cluster/kinds";
import { cachedKind, withCachedReads } from "../../../lib/cluster/cached-reads";
import { WatchCache } from "../../../lib/controller/watch-cache";
import { PackageVariant, PackageVariantKind } from "../../../crd-types";
import { MemoryCluster } from "../../support/memory-cluster";

const ref = { namespace: "ns", name: "pv" };

function setup() {
  const api = new MemoryCluster();
  const cache = new WatchCache<PackageVariant>({});
  const cluster = withCachedReads(api, [cachedKind(PackageVariantKind, cache)]);
  const gets = (from: number) => api.calls.slice(from).filter(c => c.startsWith("get "));
  return { api, cache, cluster, gets };
}

async function created(api: MemoryCluster): Promise<PackageVariant> {
  return (await api.create(PackageVariantKind, {
    metadata: ref,
    spec: { upstream: { package: "app" } },
  } as PackageVariant))!;
}

describe("withCachedReads", () => {
  it("answers a get of a watched kind from its cache, with a copy the caller may change", async () => {
    const { api, cache, cluster, gets } = setup();
    cache.upsert(await created(api));
    const from = api.calls.length;

    const read = await cluster.get(PackageVariantKind, ref);
    read!.spec!.upstream!.package = "changed by the caller";

    expect(gets(from)).toEqual([]);
    expect(cache.named(ref)?.spec?.upstream?.package).toBe("app");
  });

  it("asks the API server for what the watch has not delivered, and does not hold it", async () => {
    const { api, cache, cluster, gets } = setup();
    await created(api);
    const from = api.calls.length;

    expect((await cluster.get(PackageVariantKind, ref))?.metadata?.name).toBe("pv");
    expect(
      await cluster.get(PackageVariantKind, { namespace: "ns", name: "none" }),
    ).toBeUndefined();

    expect(gets(from)).toHaveLength(2);
    expect(cache.size).toBe(0);
  });

  it("holds the answer to its own write, so the next read sees it before the watch does", async () => {
    const { api, cache, cluster } = setup();
    cache.upsert(await created(api));

    const status = { conditions: [{ type: "Ready", status: "True" }] };
    await cluster.patch(PackageVariantKind, ref, { merge: { status } }, { status: true });

    expect((await cluster.get(PackageVariantKind, ref))?.status).toMatchObject(status);
  });

  it("passes reads and writes of other kinds straight through", async () => {
    const { api, cluster } = setup();
    const cm = { metadata: { namespace: "ns", name: "cm" }, data: { a: "MQ==" } };
    await cluster.create(SecretKind, cm);
    const from = api.calls.length;

    expect((await cluster.get(SecretKind, { namespace: "ns", name: "cm" }))?.metadata?.name).toBe(
      "cm",
    );
    expect(api.calls.slice(from)).toHaveLength(1);
  });
});
