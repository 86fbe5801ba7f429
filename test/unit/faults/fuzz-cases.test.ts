import { caseAt, MAX_BODY_BYTES } from "../../../faults/fuzz/cases";
import { fieldPath } from "../../../faults/fuzz/json-paths";
import { MUTATION_KINDS } from "../../../faults/fuzz/mutations";
import { TYPED_VALUES } from "../../../faults/fuzz/hostile";
import { caseRng } from "../../../faults/prng";
import { FUZZ_KINDS } from "../../../faults/fuzz/seeds";

// 600 cases cover every kind and mutation (each has a share of 1/4 and about 1/12).
const CASES = 600;
const POOL_BEFORE = JSON.stringify(TYPED_VALUES);
const cases = Array.from({ length: CASES }, (_, i) => caseAt(7, i));

describe("fuzz cases", () => {
  it("are the same for the same seed and index, whatever was generated before", () => {
    expect(caseAt(7, 123)).toEqual(cases[123]);
    expect(caseAt(8, 123)).not.toEqual(cases[123]);
  });

  it("leave the pools of hostile values as they were, and never hold a cycle", () => {
    // Seed 768792742 case 7367 nested an array taken from a pool into itself, and the cases
    // before it had grown the pool's arrays (the full run stopped there).
    expect(() => JSON.stringify(caseAt(768792742, 7367))).not.toThrow();
    expect(JSON.stringify(TYPED_VALUES)).toBe(POOL_BEFORE);
  });

  it("come from independent streams per index", () => {
    const firsts = Array.from({ length: 100 }, (_, i) => caseRng(1, i).next());
    expect(new Set(firsts).size).toBe(100);
  });

  it("produce every kind and every mutation", () => {
    expect(new Set(cases.map(c => c.kind))).toEqual(new Set(FUZZ_KINDS));
    const produced = new Set(cases.flatMap(c => c.mutations.map(m => m.kind)));
    expect([...produced].sort()).toEqual([...MUTATION_KINDS].sort());
  });

  it("each change something and stay under the API server's request limit", () => {
    for (const c of cases) {
      expect(c.mutations.length).toBeGreaterThan(0);
      expect(Buffer.byteLength(JSON.stringify(c.object))).toBeLessThan(MAX_BODY_BYTES);
    }
  });

  it("keep the object's kind and API version (the request path decides them)", () => {
    for (const c of cases) expect(c.object.kind).toBe(c.kind);
  });
});

describe("fieldPath", () => {
  it("writes paths as Kubernetes does", () => {
    expect(fieldPath(["spec", "targets", 0, "template", "labelExprs", 1, "valueExpr"])).toBe(
      "spec.targets[0].template.labelExprs[1].valueExpr",
    );
    expect(fieldPath(["spec", "resources", "../x"])).toBe('spec.resources["../x"]');
  });
});
