import { diff, parseProm, sum } from "../../../bench/metrics";

describe("parseProm", () => {
  it("reads names, labels (escaped quotes included) and values; skips comments", () => {
    const text = [
      "# HELP apiserver_request_total Counter of apiserver requests",
      "# TYPE apiserver_request_total counter",
      'apiserver_request_total{code="201",group="porch.kpt.dev",resource="packagerevisions",verb="POST"} 12',
      'weird{msg="say \\"hi\\"",x=""} 1.5e+02',
      "pepr_reconciles_package_variant_total 7",
      "",
    ].join("\n");
    expect(parseProm(text)).toEqual([
      {
        name: "apiserver_request_total",
        labels: { code: "201", group: "porch.kpt.dev", resource: "packagerevisions", verb: "POST" },
        value: 12,
      },
      { name: "weird", labels: { msg: 'say \\"hi\\"', x: "" }, value: 150 },
      { name: "pepr_reconciles_package_variant_total", labels: {}, value: 7 },
    ]);
  });
});

describe("diff and sum", () => {
  it.each([
    [{ a: 5, b: 2 }, { a: 3, b: 2 }, { a: 2 }],
    [{ a: 1, new: 4 }, { a: 1 }, { new: 4 }],
    [{ a: 1 }, { a: 1 }, {}],
  ])("%j minus %j is %j", (after, before, expected) => {
    expect(diff(after, before)).toEqual(expected);
  });

  it("adds the counts", () => expect(sum({ a: 2, b: 3 })).toBe(5));
});
