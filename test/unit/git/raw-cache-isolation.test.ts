import { ContentStores } from "../../../capabilities/shared/content-stores";
import type { Cluster } from "../../../lib/cluster/port";

// A clone from a raw git URL must never read objects another identity fetched: a commit id
// named as the ref is read straight from the cache, so namespace A's anonymous clone of a URL
// could read what namespace B's credentials brought into a cache shared by URL.
const secret = { data: { bearerToken: Buffer.from("t").toString("base64") } };
const cluster = { get: async () => secret } as unknown as Cluster;
const stores = new ContentStores(cluster, { debug() {}, warn() {} }, "/tmp/raw-cache-isolation");
const url = "https://git.example.com/org/repo.git";

const dirOf = async (namespace: string, secretRef?: { name: string }) => {
  const store = await stores.raw(namespace, { repo: url, secretRef });
  store.close();
  return store.cacheDir;
};

describe("the cache of a clone from a raw git URL", () => {
  it("is one per namespace", async () => {
    expect(await dirOf("a")).not.toBe(await dirOf("b"));
    expect(await dirOf("a", { name: "s" })).not.toBe(await dirOf("b", { name: "s" }));
  });

  it("is one per identity within a namespace", async () => {
    expect(await dirOf("a")).not.toBe(await dirOf("a", { name: "s" }));
    expect(await dirOf("a", { name: "s" })).not.toBe(await dirOf("a", { name: "t" }));
  });

  it("is shared by clones with the same namespace, URL and credentials", async () => {
    expect(await dirOf("a", { name: "s" })).toBe(await dirOf("a", { name: "s" }));
  });

  it("keeps a tenant's names out of the path", async () => {
    expect(await dirOf("a", { name: "../../x" })).toMatch(
      /^\/tmp\/raw-cache-isolation\/raw\/[0-9a-f]+\//,
    );
  });
});
