import { specDiff } from "../../../lib/package-variant-set";

describe("specDiff", () => {
  it("lists changed, added and removed fields by path", () => {
    const before = {
      labels: { org: "hr", keep: "1" },
      injectors: [{ name: "a" }],
      pipeline: { mutators: [] },
    };
    const after = { labels: { org: "finance", keep: "1", team: "x" }, injectors: [{ name: "b" }] };
    expect(specDiff(before, after)).toEqual([
      'injectors: [{"name":"a"}] → [{"name":"b"}]',
      'labels.org: "hr" → "finance"',
      'labels.team: added "x"',
      'pipeline: removed (was {"mutators":[]})',
    ]);
  });

  it("is empty for equal specs", () => {
    expect(specDiff({ a: { b: [1] } }, { a: { b: [1] } })).toEqual([]);
  });
});
