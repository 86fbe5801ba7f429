import { fieldSelector, labelSelector } from "../../../lib/cluster/selectors";

describe("fieldSelector", () => {
  it("keeps a tenant's , = and \\ inside the value instead of adding requirements", () => {
    expect(fieldSelector({ "spec.packageName": "a,spec.repository=b\\c" })).toBe(
      "spec.packageName=a\\,spec.repository\\=b\\\\c",
    );
  });

  it("selects an empty value explicitly (a bare field name is not a field selector)", () => {
    expect(fieldSelector({ "spec.repository": "", "spec.packageName": "app" })).toBe(
      "spec.repository=,spec.packageName=app",
    );
  });

  it("passes a selector string through and leaves an empty one out", () => {
    expect(fieldSelector("metadata.name=x")).toBe("metadata.name=x");
    expect(fieldSelector({})).toBeUndefined();
    expect(fieldSelector("")).toBeUndefined();
  });
});

describe("labelSelector", () => {
  it("reads an empty value as 'has the label'", () => {
    expect(labelSelector({ a: "1", b: "" })).toBe("a=1,b");
    expect(labelSelector("a in (x,y)")).toBe("a in (x,y)");
    expect(labelSelector(undefined)).toBeUndefined();
  });
});
