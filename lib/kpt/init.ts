// `kpt pkg init` / Porch's init task on an in-memory package.
import { stringify } from "yaml";
import { generatePackageContext } from "./clone";
import { KPTFILE } from "./kptfile";

export interface InitOptions {
  description?: string;
  keywords?: string[];
  site?: string;
  /** Deployment repositories get a package context (ConfigMap kptfile.kpt.dev with `name`). */
  forDeployment?: boolean;
  packagePath?: string;
}

/** A new package: a Kptfile with the package's info, a README and, to deploy, the context. */
export function initPackage(
  packageName: string,
  options: InitOptions = {},
): Record<string, string> {
  const name = packageName.split("/").filter(Boolean).pop() ?? packageName;
  const info: Record<string, unknown> = {};
  if (options.site) info.site = options.site;
  if (options.description) info.description = options.description;
  if (options.keywords?.length) info.keywords = options.keywords;
  const kptfile = {
    apiVersion: "kpt.dev/v1",
    kind: "Kptfile",
    metadata: { name, annotations: { "config.kubernetes.io/local-config": "true" } },
    ...(Object.keys(info).length > 0 && { info }),
  };
  const readme = `# ${name}\n\n${options.description ? `${options.description}\n` : ""}`;
  const files = { [KPTFILE]: stringify(kptfile), "README.md": readme };
  return options.forDeployment
    ? generatePackageContext(files, {
        name,
        ...(options.packagePath && { packagePath: options.packagePath }),
      })
    : files;
}
