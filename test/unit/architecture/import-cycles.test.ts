import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importCycles, importGraph, tsFiles } from "./import-graph";

// An import cycle among the module's sources makes load order matter (a value read before its
// module finished loading is undefined under CommonJS) and ties together layers that should
// stand alone: lib/ is framework-free logic, capabilities/ wires it to Pepr.

const root = join(__dirname, "../../..");

describe("import cycles", () => {
  it("finds none among lib/ and capabilities/", () => {
    const graph = importGraph(root, tsFiles(root, ["lib", "capabilities"]));
    // The parser found the imports at all: an empty graph would have no cycle either.
    expect(graph.get("lib/fn/runtime.ts")).toContain("lib/fn/types.ts");
    expect(importCycles(graph).map(cycle => cycle.join(" -> "))).toEqual([]);
  });

  it("counts type-only imports, re-exports and require()", () => {
    const dir = mkdtempSync(join(tmpdir(), "import-cycles-"));
    try {
      mkdirSync(join(dir, "src", "c"), { recursive: true });
      writeFileSync(join(dir, "src", "a.ts"), 'import type {\n  B,\n} from "./b";\n');
      writeFileSync(join(dir, "src", "b.ts"), 'export type { C } from "./c";\n');
      writeFileSync(join(dir, "src", "c", "index.ts"), 'const a = require("../a");\n');
      writeFileSync(join(dir, "src", "d.ts"), 'import { A } from "./a";\nimport "yaml";\n');
      const graph = importGraph(dir, tsFiles(dir, ["src"]));
      expect(importCycles(graph)).toEqual([["src/a.ts", "src/b.ts", "src/c/index.ts", "src/a.ts"]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
