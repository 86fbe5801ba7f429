import { matchesSelector, toSelectorString } from "../../../lib/kubernetes/label-selector";

describe("label selectors", () => {
  const selector = {
    matchLabels: { env: "prod" },
    matchExpressions: [
      { key: "region", operator: "In", values: ["b", "a"] },
      { key: "tier", operator: "NotIn", values: ["bronze"] },
      { key: "owner", operator: "Exists" },
      { key: "legacy", operator: "DoesNotExist" },
    ],
  };

  it("renders the API's labelSelector syntax", () => {
    expect(toSelectorString(selector)).toBe(
      "env=prod,region in (a,b),tier notin (bronze),owner,!legacy",
    );
    expect(toSelectorString(undefined)).toBe("");
  });

  it.each<[Record<string, string>, boolean]>([
    [{ env: "prod", region: "a", owner: "x" }, true],
    [{ env: "prod", region: "c", owner: "x" }, false],
    [{ env: "prod", region: "a", owner: "x", tier: "bronze" }, false],
    [{ env: "prod", region: "a" }, false],
    [{ env: "prod", region: "a", owner: "x", legacy: "" }, false],
    [{ env: "dev", region: "a", owner: "x" }, false],
  ])("matches %j: %s", (labels, expected) => {
    expect(matchesSelector(labels, selector)).toBe(expected);
  });
});
