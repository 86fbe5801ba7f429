import { parseAllDocuments } from "yaml";
import { parseYamlFile } from "../../../lib/krm/documents";
import {
  MAX_YAML_DEPTH,
  parseYamlDocument,
  parseYamlDocuments,
  parseYamlValue,
} from "../../../lib/krm/yaml-parse";

const TOO_DEEP = `YAML nested more than ${MAX_YAML_DEPTH} levels deep`;

describe("YAML nesting depth", () => {
  // Before the bound, 1,000 levels overflowed the stack inside the composer, and a 20,000-level
  // sequence parsed next killed Node ("RegExpCompiler Allocation failed").
  it.each([
    ["a flow sequence", `a: ${"[".repeat(1000)}${"]".repeat(1000)}\n`],
    ["a flow map", `a: ${"{a: ".repeat(1000)}1${"}".repeat(1000)}\n`],
    ["compact block sequences on one line", `${"- ".repeat(5000)}a\n`],
    ["indented block maps", Array.from({ length: 600 }, (_, i) => `${" ".repeat(i)}k:`).join("\n")],
  ])("refuses %s nested past the bound, naming the bound", (_, text) => {
    expect(() => parseYamlFile(text)).toThrow(TOO_DEEP);
  });

  it("refuses a deep document after a good one (the error is not lost with the document)", () => {
    const text = `a: 1\n---\nb: ${"[".repeat(20000)}${"]".repeat(20000)}\n`;
    expect(() => parseYamlFile(text)).toThrow(TOO_DEEP);
  });

  it("accepts nesting up to the bound", () => {
    // Each flow sequence is a level below the key's map, which is below the document.
    const depth = MAX_YAML_DEPTH - 2;
    const value = parseYamlValue(`a: ${"[".repeat(depth)}${"]".repeat(depth)}\n`);
    let levels = 0;
    for (let node = (value as { a: unknown }).a; Array.isArray(node); node = node[0]) levels++;
    expect(levels).toBe(depth);
  });
});

describe("parsing as yaml does", () => {
  const text = "# head\na: 1 # one\nb:\n- x\n- {y: z}\n---\nkind: K\n";

  it("gives the same documents as parseAllDocuments", () => {
    const ours = parseYamlDocuments(text).map(d => d.toString());
    expect(ours).toEqual(parseAllDocuments(text).map(d => d.toString()));
  });

  it("says where an error is", () => {
    expect(parseYamlDocument("a: [1\n").errors[0].message).toMatch(/ at line 2, column 1$/);
  });

  it("counts a second document as an error of parseYamlDocument", () => {
    expect(parseYamlDocument("a: 1\n---\nb: 2\n").errors.map(e => e.message)).toEqual([
      "Source contains multiple documents at line 2, column 1",
    ]);
  });

  it("gives one empty document for an empty text", () => {
    expect(parseYamlDocuments("").map(d => d.contents)).toEqual([null]);
  });
});
