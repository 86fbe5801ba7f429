// lib/krm/documents: comment- and style-preserving multi-document YAML round trips.
import {
  apiGroup,
  isKrmPath,
  krmMeta,
  parseKrmFile,
  parseYamlFile,
  stringifyYamlFile,
} from "../../../lib/krm/documents";

describe("YAML round trips", () => {
  it.each([
    [
      "indented sequences and comments",
      "# head\napiVersion: v1\nkind: A # kind\nmetadata: # kpt-merge: ns/a\n  name: a\nlist:\n  - x\n  - y\n",
    ],
    [
      "compact sequences",
      "apiVersion: v1\nkind: A\nmetadata:\n  name: a\nlist:\n- x\n- y: 1\n  z: 2\n",
    ],
    ["several documents", "---\napiVersion: v1\nkind: A\n---\n# second\napiVersion: v1\nkind: B\n"],
    [
      "long lines, quotes, flow collections, block scalars",
      `a: 'single'\nb: "double"\nc: [x, y]\nd: {}\ne: ${"word ".repeat(30).trim()}\nf: |\n  line one\n  line two\n`,
    ],
  ])("%s are written back unchanged", (_, text) => {
    expect(stringifyYamlFile(parseYamlFile(text))).toBe(text);
  });

  it("keeps a comment written on a key whose value is a block collection on that key", () => {
    const file = parseYamlFile("metadata: # kpt-merge: /a\n  # inside\n  name: a\n");
    file.docs[0].setIn(["metadata", "name"], "b");
    expect(stringifyYamlFile(file)).toBe("metadata: # kpt-merge: /a\n  # inside\n  name: b\n");
  });
});

describe("KRM files", () => {
  it.each([
    ["Kptfile", true],
    ["sub/Kptfile", true],
    ["a/b.yaml", true],
    ["c.yml", true],
    ["README.md", false],
    ["Kptfile.bak", false],
  ])("isKrmPath(%s) = %s", (path, expected) => {
    expect(isKrmPath(path)).toBe(expected);
  });

  it.each([
    ["invalid YAML", "a: [\n"],
    ["a document without kind", "apiVersion: v1\nmetadata:\n  name: x\n"],
    ["a scalar document", "just text\n"],
    ["no objects at all", "# only a comment\n"],
  ])("parseKrmFile rejects %s", (_, text) => {
    expect(parseKrmFile(text)).toBeUndefined();
  });

  it("reads identity fields and the API group", () => {
    const file = parseKrmFile(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: n\n",
    );
    expect(file && krmMeta(file.docs[0])).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "d",
      namespace: "n",
    });
    expect(apiGroup("apps/v1")).toBe("apps");
    expect(apiGroup("v1")).toBe("");
  });

  it("keeps comment-only documents only when asked", () => {
    const text = "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n---\n# retired: B\n";
    expect(parseKrmFile(text)?.docs).toHaveLength(1);
    const kept = parseKrmFile(text, { keepCommentDocs: true });
    expect(kept?.docs).toHaveLength(2);
    expect(kept && stringifyYamlFile(kept)).toBe(text);
  });
});
