import { repositoryUidProblem, workspaceTakenProblem } from "../../../lib/validation";

const id = (
  name: string,
  workspaceName = "v1",
  packageName = "hello",
  repository = "blueprints",
) => ({
  name,
  repository,
  packageName,
  workspaceName,
});

describe("workspaceTakenProblem", () => {
  it("names the object that already has the package's workspace", () => {
    expect(workspaceTakenProblem(id("mine"), [id("blueprints.hello.v1")])).toBe(
      'spec.workspaceName: package "hello" of repository "blueprints" already has workspace "v1": PackageRevision "blueprints.hello.v1"; workspaceNames must be unique per package',
    );
  });

  it("ignores the object itself, other workspaces, packages and repositories", () => {
    expect(
      workspaceTakenProblem(id("mine"), [
        id("mine"),
        id("a", "v2"),
        id("b", "v1", "other"),
        id("c", "v1", "hello", "deployments"),
      ]),
    ).toBeUndefined();
  });
});

describe("repositoryUidProblem", () => {
  const key = "porch.kpt.dev/repository-uid";
  it("lets it be recorded once, then never changed or removed", () => {
    expect(repositoryUidProblem({ [key]: "a" }, undefined)).toBeUndefined();
    expect(repositoryUidProblem({ [key]: "a", x: "y" }, { [key]: "a" })).toBeUndefined();
    expect(repositoryUidProblem({ [key]: "b" }, { [key]: "a" })).toBe(
      `metadata.annotations[${key}] is immutable`,
    );
    expect(repositoryUidProblem({}, { [key]: "a" })).toBeDefined();
  });
});
