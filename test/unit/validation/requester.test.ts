import { isOperatorRequest, secretUseProblem, secretUses } from "../../../lib/validation";

describe("isOperatorRequest", () => {
  const operator = "system:serviceaccount:pepr-system:pepr-porch-pepr";
  it.each<[string, { username?: string } | undefined, string | undefined, boolean]>([
    ["the operator's own account", { username: operator }, operator, true],
    ["another user", { username: "tenant-a" }, operator, false],
    [
      "another ServiceAccount of the same namespace",
      { username: `${operator}-x` },
      operator,
      false,
    ],
    ["no user name", {}, operator, false],
    ["no request user", undefined, operator, false],
    ["an operator identity not known yet", { username: operator }, undefined, false],
    ["an empty operator identity", { username: "" }, "", false],
  ])("%s", (_name, user, own, expected) => {
    expect(isOperatorRequest(user, own)).toBe(expected);
  });
});

describe("secretUses", () => {
  const repo = (url: string, secret?: string) => ({
    metadata: { namespace: "team-a" },
    spec: { git: { repo: url, ...(secret && { secretRef: { name: secret } }) } },
  });
  const use = { field: "spec.git.secretRef", namespace: "team-a", name: "creds" };

  it("names the Secret a new Repository would make the operator read", () => {
    expect(secretUses("Repository", repo("https://a", "creds"), undefined)).toEqual([use]);
  });
  it("checks again when anything in the spec changes: a new URL sends the same credentials", () => {
    expect(
      secretUses("Repository", repo("https://b", "creds"), repo("https://a", "creds")),
    ).toEqual([use]);
  });
  it("lets an unchanged spec through, so an object made earlier can still be finalized", () => {
    expect(
      secretUses("Repository", repo("https://a", "creds"), repo("https://a", "creds")),
    ).toEqual([]);
  });
  it("has nothing to check without a Secret, or for kinds that name none", () => {
    expect(secretUses("Repository", repo("https://a"), undefined)).toEqual([]);
    expect(secretUses("PackageVariant", repo("https://a", "creds"), undefined)).toEqual([]);
  });
  it('reads no Secret for an empty name (porchctl\'s `secretRef: {name: ""}`)', () => {
    const empty = {
      ...repo("https://a"),
      spec: { git: { repo: "https://a", secretRef: { name: "" } } },
    };
    expect(secretUses("Repository", empty, undefined)).toEqual([]);
  });
  it("finds a raw git clone source's Secret", () => {
    const pr = {
      metadata: { namespace: "team-a" },
      spec: { source: { cloneFrom: { git: { repo: "https://a", secretRef: { name: "creds" } } } } },
    };
    expect(secretUses("PackageRevision", pr, undefined)).toEqual([
      { field: "spec.source.cloneFrom.git.secretRef", namespace: "team-a", name: "creds" },
    ]);
  });
  it("says who may not read which Secret", () => {
    expect(secretUseProblem(use, { username: "tenant-a" })).toBe(
      'spec.git.secretRef: "tenant-a" may not get Secret "creds" in namespace "team-a"; an object may only use credentials that whoever applies it can read',
    );
  });
});
