// Package files with a repeated map key are refused as the parser refused them, now that the
// check is one pass of our own (the parser's is quadratic in a map's size).
import { parseYamlFile, YamlParseError } from "../../../lib/krm/documents";

describe("repeated map keys", () => {
  it.each([
    ["at the top", "a: 1\nb: 2\na: 3\n"],
    ["in a nested map", "a:\n  x: 1\n  y: 2\n  x: 3\n"],
    ["in a map inside a list", "a:\n- x: 1\n  x: 2\n"],
    ["in a later document", "a: 1\n---\nb: 1\nb: 2\n"],
  ])("are refused %s", (_, text) => {
    expect(() => parseYamlFile(text)).toThrow(new YamlParseError("Map keys must be unique"));
  });

  it('are keys of the same value: 1 and "1" differ, as they do to the parser', () => {
    expect(parseYamlFile('1: a\n"1": b\n').docs).toHaveLength(1);
  });

  it("do not include the same key in different maps", () => {
    expect(parseYamlFile("a:\n  x: 1\nb:\n  x: 1\nc:\n- x: 1\n- x: 2\n").docs).toHaveLength(1);
  });

  // Spreading a sequence's items into the work list overflowed the call stack (RangeError)
  // for a sequence of 400,000 items, a file within the 1 MiB limit.
  it("are looked for in a sequence of 400,000 items without overflowing the stack", () => {
    const text = `a: [${Array<string>(400_000).fill("1").join(",")}]\n`;
    expect(parseYamlFile(text).docs).toHaveLength(1);
  });
});
