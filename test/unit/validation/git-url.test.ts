import type { PackageRevision, Repository } from "../../../crd-types";
import { cloneSourceUrlProblems, validateRepository } from "../../../lib/validation";

const policy = { http: "loopback" as const, file: false };

describe("git URLs at admission", () => {
  it("refuses a Repository whose URL carries credentials or names a metadata host", () => {
    const spec = (repo: string) => ({ type: "git", git: { repo } }) as Repository["spec"];
    expect(validateRepository(spec("https://github.com/org/repo.git"), policy)).toEqual([]);
    expect(validateRepository(spec("https://user:pass@github.com/org/repo.git"), policy)).toEqual([
      "spec.git.repo: credentials in the URL are not allowed; use secretRef",
    ]);
    expect(validateRepository(spec("http://169.254.169.254/latest"), policy)).toEqual([
      'spec.git.repo: host "169.254.169.254" is a link-local or cloud metadata address, which is never allowed',
    ]);
    expect(validateRepository({} as Repository["spec"], policy)).toEqual([]);
  });

  it("holds a Repository's directory to the package file-name rule", () => {
    const spec = (directory: string) =>
      ({
        type: "git",
        git: { repo: "https://github.com/org/r.git", directory },
      }) as Repository["spec"];
    expect(validateRepository(spec("/"), policy)).toEqual([]);
    expect(validateRepository(spec("/packages/"), policy)).toEqual([]);
    expect(validateRepository(spec(".git"), policy)).toEqual([
      'spec.git.directory has a ".git" component',
    ]);
    expect(validateRepository(spec("a/../.."), policy)).toEqual([
      'spec.git.directory has a ".." segment',
    ]);
  });

  it("refuses the same for a raw git clone source", () => {
    const spec = (repo: string) =>
      ({
        packageName: "p",
        repository: "r",
        workspaceName: "w",
        source: { cloneFrom: { git: { repo, ref: "main", directory: "/" } } },
      }) as PackageRevision["spec"];
    expect(cloneSourceUrlProblems(spec("https://example.com/r.git"), policy)).toEqual([]);
    expect(cloneSourceUrlProblems(spec("http://git.example.com/r.git"), policy)).toEqual([
      "spec.source.cloneFrom.git.repo: http is allowed only to loopback hosts by the operator's configuration (PORCH_PEPR_GIT_ALLOW_HTTP=loopback); use https",
    ]);
  });
});
