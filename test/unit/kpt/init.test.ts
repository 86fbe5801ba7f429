import { parse } from "yaml";
import { initPackage } from "../../../lib/kpt";

describe("initPackage", () => {
  it("writes a Kptfile with the package's info and a README", () => {
    const files = initPackage("apps/nginx", {
      description: "web server",
      keywords: ["web"],
      site: "https://x.dev",
    });
    expect(Object.keys(files).sort()).toEqual(["Kptfile", "README.md"]);
    expect(parse(files.Kptfile)).toEqual({
      apiVersion: "kpt.dev/v1",
      kind: "Kptfile",
      metadata: { name: "nginx", annotations: { "config.kubernetes.io/local-config": "true" } },
      info: { site: "https://x.dev", description: "web server", keywords: ["web"] },
    });
    expect(files["README.md"]).toBe("# nginx\n\nweb server\n");
  });

  it("adds the package context in a deployment repository", () => {
    const files = initPackage("edge", { forDeployment: true });
    const context = parse(files["package-context.yaml"]);
    expect(context).toMatchObject({
      kind: "ConfigMap",
      metadata: { name: "kptfile.kpt.dev" },
      data: { name: "edge" },
    });
  });
});
