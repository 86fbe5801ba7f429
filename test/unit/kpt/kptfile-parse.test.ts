// The one Kptfile parse every reader shares, and its one error shape.
import { KptfileError, parseKptfile } from "../../../lib/kpt/kptfile";

const fails = (text: string, path?: string, requireKind = false) => {
  try {
    parseKptfile(text, path, { requireKind });
  } catch (error) {
    return error;
  }
  throw new Error("parsed");
};

describe("parseKptfile", () => {
  it("reads one mapping, with empty documents around it dropped", () => {
    const kptfile = parseKptfile("---\napiVersion: kpt.dev/v1\nkind: Kptfile\n---\n");
    expect(kptfile.root.get("kind")).toBe("Kptfile");
  });

  it.each([
    ["a: [\n", /^sub\/Kptfile does not parse: /],
    ["- a\n", /^sub\/Kptfile is not a YAML mapping$/],
    ["", /^sub\/Kptfile is not a YAML mapping$/],
    ["kind: Kptfile\n---\nkind: Kptfile\n", /^sub\/Kptfile holds 2 YAML documents, expected one$/],
  ])("refuses %p with a KptfileError naming the file", (text, message) => {
    const error = fails(text, "sub/Kptfile");
    expect(error).toBeInstanceOf(KptfileError);
    expect(error).toMatchObject({ path: "sub/Kptfile", message: expect.stringMatching(message) });
  });

  it("checks the kind only when asked (the store tells a package by it)", () => {
    expect(parseKptfile("kind: ConfigMap\n").root.get("kind")).toBe("ConfigMap");
    expect(fails("kind: ConfigMap\n", undefined, true)).toMatchObject({
      message: 'Kptfile has kind "ConfigMap", expected "Kptfile"',
    });
    expect(fails("apiVersion: v1\n", undefined, true)).toMatchObject({
      message: 'Kptfile has kind null, expected "Kptfile"',
    });
  });
});
