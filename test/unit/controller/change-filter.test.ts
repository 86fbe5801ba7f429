import { ChangeFilter } from "../../../lib/controller/change-filter";

interface Obj {
  spec: { lifecycle: string };
  status?: { rendered?: string; revision?: number };
}

describe("ChangeFilter", () => {
  const filter = () => new ChangeFilter<Obj>(o => ({ spec: o.spec, revision: o.status?.revision }));

  it("passes the first sighting and every change of the projection, and nothing else", () => {
    const f = filter();
    expect(f.changed("a", { spec: { lifecycle: "Draft" } })).toBe(true);
    expect(f.changed("a", { spec: { lifecycle: "Draft" }, status: { rendered: "yes" } })).toBe(
      false,
    );
    expect(f.changed("a", { spec: { lifecycle: "Draft" }, status: { revision: 1 } })).toBe(true);
    expect(f.changed("a", { spec: { lifecycle: "Published" }, status: { revision: 1 } })).toBe(
      true,
    );
    expect(f.changed("a", { spec: { lifecycle: "Published" }, status: { revision: 1 } })).toBe(
      false,
    );
  });

  it("keeps objects apart by key and forgets a deleted one", () => {
    const f = filter();
    const obj = { spec: { lifecycle: "Draft" } };
    expect(f.changed("a", obj)).toBe(true);
    expect(f.changed("b", obj)).toBe(true);
    expect(f.size).toBe(2);
    f.forget("a");
    expect(f.size).toBe(1);
    expect(f.changed("a", obj)).toBe(true);
  });
});
