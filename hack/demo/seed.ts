// The repositories the PackageVariantSet examples name, so each example in
// examples/packagevariantset/seed-*.yaml works as written on `npm start`: the upstreams
// platform-catalog (base-ns) and example-repo (foo), and the deployment repositories
// cluster-01..04 labelled as in docs/package-variant-sets.md, “Worked examples”.
import type { GitServer } from "../git-server";
import { DEMO_BLUEPRINTS } from "./packages";
import {
  DemoOptions,
  prepareRepository,
  publishPackages,
  repositoryManifest,
  RepositoryManifest,
} from "./repositories";

/** The repository table of docs/package-variant-sets.md, “Worked examples”. */
export const SEED_CLUSTERS: Readonly<Record<string, Record<string, string>>> = {
  "cluster-01": { region: "useast1", env: "prod", org: "hr" },
  "cluster-02": { region: "uswest1", env: "prod", org: "finance" },
  "cluster-03": { region: "useast2", env: "prod", org: "hr" },
  "cluster-04": { region: "uswest1", env: "prod", org: "hr" },
};

const baseNsV1 = DEMO_BLUEPRINTS.find(p => p.name === "base-ns")!.revisions[0];

const foo = {
  Kptfile: `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: foo
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: The seed's example package.
`,
  "configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: foo
data:
  greeting: hello
`,
};

export async function createSeedRepositories(
  server: Pick<GitServer, "createBareRepo">,
  options: DemoOptions,
): Promise<RepositoryManifest[]> {
  const upstream = async (name: string, pkg: string, files: Readonly<Record<string, string>>) => {
    const url = await prepareRepository(server, name, options, store =>
      publishPackages(store, [
        {
          name: pkg,
          revisions: [
            { workspaceName: "v1", lifecycle: "Published", commitMessage: `${pkg} v1`, files },
          ],
        },
      ]),
    );
    return repositoryManifest(name, options.namespace, {
      deployment: false,
      git: { repo: url, branch: "main" },
    });
  };
  const cluster = async (name: string, labels: Record<string, string>) => {
    const url = await prepareRepository(
      server,
      name,
      options,
      async store => void (await store.open()),
    );
    return repositoryManifest(
      name,
      options.namespace,
      { deployment: true, git: { repo: url, branch: "main" } },
      labels,
    );
  };
  return Promise.all([
    upstream("platform-catalog", "base-ns", baseNsV1.files),
    upstream("example-repo", "foo", foo),
    ...Object.entries(SEED_CLUSTERS).map(([name, labels]) => cluster(name, labels)),
  ]);
}
