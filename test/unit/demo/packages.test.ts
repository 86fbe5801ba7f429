import { parse } from "yaml";
import { renderPackage } from "../../../lib/fn";
import { scanInjectionPoints } from "../../../lib/package-variant/injection-points";
import { DEMO_BLUEPRINTS } from "../../../hack/demo/packages";

const revisions = DEMO_BLUEPRINTS.flatMap(pkg =>
  pkg.revisions.map(rev => [`${pkg.name}/${rev.workspaceName}`, pkg.name, rev.files] as const),
);

describe("demo blueprint packages", () => {
  it.each(revisions)(
    "%s has a kpt.dev/v1 Kptfile named after its directory, with a description",
    (_id, name, files) => {
      const kptfile = parse(files.Kptfile) as {
        apiVersion?: string;
        kind?: string;
        metadata?: { name?: string };
        info?: { description?: string };
      };
      expect(kptfile).toMatchObject({ apiVersion: "kpt.dev/v1", kind: "Kptfile" });
      expect(kptfile.metadata?.name).toBe(name.split("/").pop());
      expect(kptfile.info?.description).toMatch(/\w/);
    },
  );

  // Published content is what a clone starts from: it must already be rendered, or the first
  // render of every downstream package would show changes nobody made.
  it.each(revisions)(
    "%s renders with the built-in functions and is already rendered",
    async (_id, _name, files) => {
      const out = await renderPackage(files);
      expect(out.error).toBeUndefined();
      expect(out.ok).toBe(true);
      expect(out.files).toEqual(files);
    },
  );

  it("has a pipeline in every published package (the Draft has none)", () => {
    const withPipeline = revisions
      .filter(([, , files]) => /\npipeline:\n/.test(files.Kptfile))
      .map(([id]) => id);
    expect(withPipeline).toEqual(["base-ns/v1", "base-ns/v2", "app/v1", "nested/monitoring/v1"]);
  });

  it("app offers the endpoints ConfigMap as an optional injection point that feeds the Deployment", async () => {
    const app = DEMO_BLUEPRINTS.find(pkg => pkg.name === "app")!.revisions[0].files;
    expect(scanInjectionPoints(app).points).toMatchObject([
      {
        file: "endpoints.yaml",
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "endpoints",
        required: false,
      },
    ]);
    // As if useast1-endpoints had been injected: the render carries the new value into the container.
    const injected = {
      ...app,
      "endpoints.yaml": app["endpoints.yaml"].replace(
        "db.example.internal",
        "db.useast1.example.internal",
      ),
    };
    const out = await renderPackage(injected);
    expect(out.ok).toBe(true);
    expect(out.files["deployment.yaml"]).toContain("value: db.useast1.example.internal:5432");
    expect(out.files["deployment.yaml"]).toContain("value: cache.example.internal:6379");
  });

  it("base-ns takes its namespace from the package context, as a deployment clone regenerates it", async () => {
    const v1 = DEMO_BLUEPRINTS.find(pkg => pkg.name === "base-ns")!.revisions[0].files;
    const out = await renderPackage({
      ...v1,
      "package-context.yaml": v1["package-context.yaml"].replace("name: example", "name: team-a"),
    });
    expect(out.ok).toBe(true);
    expect(out.files["namespace.yaml"]).toContain("name: team-a");
    expect(out.files["resourcequota.yaml"]).toContain("namespace: team-a");
  });

  it("base-ns v2 differs from v1 only in the quota", () => {
    const [v1, v2] = DEMO_BLUEPRINTS.find(pkg => pkg.name === "base-ns")!.revisions.map(
      r => r.files,
    );
    const changed = Object.keys(v2).filter(path => v1[path] !== v2[path]);
    expect(changed).toEqual(["resourcequota.yaml"]);
    expect(parse(v2["resourcequota.yaml"])).toMatchObject({
      spec: { hard: { "requests.cpu": "4", "requests.memory": "8Gi", pods: "50" } },
    });
  });
});
