import {
  feedFunctionCatalog,
  FUNCTION_CATALOG,
} from "../../../capabilities/shared/function-catalog";
import { ConfigMapKind } from "../../../lib/cluster/kinds";
import { MemoryCluster } from "../../support/memory-cluster";
import { newHolder } from "../../support/function-catalog";
import { RecordingLogger } from "../../support/operator-context";

const MAPPED = `functions:\n  - {image: "example.com/fns/labeller:v1.*", runtime: builtin, builtin: set-labels}\n`;

describe("feedFunctionCatalog", () => {
  const cm = (text: string, namespace = FUNCTION_CATALOG.namespace) => ({
    metadata: { ...FUNCTION_CATALOG, namespace },
    data: { "catalog.yaml": text },
  });
  const settle = () => new Promise(resolve => setImmediate(resolve));

  async function feed(cluster: MemoryCluster, events = true) {
    const holder = newHolder();
    const log = new RecordingLogger();
    let changes = 0;
    const watch = await feedFunctionCatalog(cluster, holder, log, {
      events,
      onChange: () => changes++,
    });
    return { holder, log, watch, changes: () => changes };
  }

  it("reads the ConfigMap at start, then follows it without a restart", async () => {
    const cluster = new MemoryCluster().serve(ConfigMapKind, { statusSubresource: false });
    await cluster.create(ConfigMapKind, cm(MAPPED));
    const { holder, log, watch, changes } = await feed(cluster);
    expect(holder.current().catalog.entries[0].where).toBe("functions[0]");
    expect(changes()).toBe(1);

    await cluster.patch(ConfigMapKind, FUNCTION_CATALOG, {
      merge: { data: { "catalog.yaml": "builtinDefaults: false\n" } },
    });
    await settle();
    expect(holder.current().catalog.entries).toEqual([]);
    expect(changes()).toBe(2);
    expect(cluster.events.map(e => [e.type, e.reason, e.kind, e.namespace, e.name])).toEqual([
      ["Normal", "FunctionCatalogLoaded", "ConfigMap", "pepr-system", "porch-pepr-functions"],
      ["Normal", "FunctionCatalogLoaded", "ConfigMap", "pepr-system", "porch-pepr-functions"],
    ]);

    await cluster.delete(ConfigMapKind, FUNCTION_CATALOG);
    await settle();
    expect(holder.current().catalog.entries.every(e => e.isDefault)).toBe(true);
    expect(log.at("info").at(-1)).toMatch(/^no ConfigMap pepr-system\/porch-pepr-functions: /);
    watch.close();
  });

  it("keeps the catalog in use when the new one is refused, with an error and a Warning", async () => {
    const cluster = new MemoryCluster().serve(ConfigMapKind, { statusSubresource: false });
    await cluster.create(ConfigMapKind, cm(MAPPED));
    const { holder, log, watch, changes } = await feed(cluster);
    const inUse = holder.current().catalog;

    await cluster.patch(ConfigMapKind, FUNCTION_CATALOG, {
      merge: { data: { "catalog.yaml": "functions:\n  - {image: 'x/fn', runtime: builtin}\n" } },
    });
    await settle();
    expect(holder.current().catalog).toBe(inUse);
    expect(changes()).toBe(1);
    const message =
      "function catalog in ConfigMap pepr-system/porch-pepr-functions refused (the catalog in use stays: 1 entry from ConfigMap pepr-system/porch-pepr-functions, then the built-in defaults (apply-replacements, apply-setters, ensure-name-substring, search-replace, set-annotations, set-labels, set-namespace)): " +
      `functions[0].image: needs a tag pattern after ':' ("*" for any tag) or a digest after '@'`;
    expect(log.at("error")).toEqual([message]);
    expect(cluster.events.at(-1)).toMatchObject({
      type: "Warning",
      reason: "FunctionCatalogInvalid",
      message,
    });
    watch.close();
  });

  it("reads only the ConfigMap of the module's namespace: a tenant's namesake changes nothing", async () => {
    const cluster = new MemoryCluster().serve(ConfigMapKind, { statusSubresource: false });
    const { holder, watch, changes } = await feed(cluster, false);
    await cluster.create(ConfigMapKind, cm(MAPPED, "team-a"));
    await settle();
    expect(holder.current().generation).toBe(0);
    expect(changes()).toBe(0);
    expect(cluster.events).toEqual([]);
    watch.close();
  });

  it("starts on the defaults when the ConfigMap cannot be read, and takes it from the watch", async () => {
    const cluster = new MemoryCluster().serve(ConfigMapKind, { statusSubresource: false });
    cluster.failNext("get", "ConfigMap", new Error("connection refused"));
    await cluster.create(ConfigMapKind, cm(MAPPED));
    const { holder, log, watch } = await feed(cluster, false);
    expect(log.at("error")[0]).toMatch(
      /^function catalog: cannot read ConfigMap pepr-system\/porch-pepr-functions \(connection refused\)/,
    );
    await settle();
    expect(holder.current().catalog.entries[0].where).toBe("functions[0]");
    watch.close();
  });
});
