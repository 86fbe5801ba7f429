import {
  fileNameProblem,
  fileNamesProblem,
  MAX_FILE_NAME_BYTES,
  printableName,
} from "../../../lib/packages/file-names";

describe("package file names", () => {
  it.each([
    "Kptfile",
    "a.yaml",
    "sub/dir/x.yaml",
    ".gitignore",
    ".github/workflows/ci.yaml",
    "dir.git/x.yaml",
    "gitx/y",
    "..a/b..yaml",
    "ünïcode/名前.yaml",
  ])("accepts %s", name => {
    expect(fileNameProblem(name)).toBeUndefined();
  });

  it.each([
    ["a.yaml\u0000x", "contains a control or invisible character"],
    ["a\nb.yaml", "contains a control or invisible character"],
    ["a\u001b[31m.yaml", "contains a control or invisible character"],
    ["a\u007f.yaml", "contains a control or invisible character"],
    ["a\u0085.yaml", "contains a control or invisible character"],
    ["evil\u202egnp.yaml", "contains a control or invisible character"],
    [".g\u200cit/config", "contains a control or invisible character"],
    ["a\u2028b", "contains a control or invisible character"],
    ["lone\ud800.yaml", "contains a control or invisible character"],
    ["/abs.yaml", "is an absolute path"],
    ["../escape.yaml", 'has a ".." segment'],
    ["a/../../b.yaml", 'has a ".." segment'],
    ["..", 'has a ".." segment'],
    [".git/hooks/post-checkout", 'has a ".git" component'],
    ["sub/.GIT/config", 'has a ".git" component'],
    [".Git", 'has a ".git" component'],
    [".git. /config", 'has a ".git" component'],
    ["GIT~1/config", 'has a ".git" component'],
    ["./a.yaml", 'has a "." segment'],
    ["a//b.yaml", "has an empty segment or a trailing slash"],
    ["dir/", "has an empty segment or a trailing slash"],
    ["", "is empty"],
    ["a\\b.yaml", "contains a backslash"],
    ["..\\escape.yaml", "contains a backslash"],
  ])("refuses %j: %s", (name, problem) => {
    expect(fileNameProblem(name)).toBe(problem);
  });

  it(`refuses names over ${MAX_FILE_NAME_BYTES} UTF-8 bytes`, () => {
    const tooLong = `is longer than ${MAX_FILE_NAME_BYTES} bytes`;
    expect(fileNameProblem("x".repeat(MAX_FILE_NAME_BYTES))).toBeUndefined();
    expect(fileNameProblem("x".repeat(MAX_FILE_NAME_BYTES + 1))).toBe(tooLong);
    expect(fileNameProblem("é".repeat(MAX_FILE_NAME_BYTES / 2 + 1))).toBe(tooLong);
  });

  it("shows names printable: quoted, control and invisible characters escaped, long ones cut", () => {
    expect(printableName('a\u0000b\n\u202e"\\.yaml')).toBe('"a\\u0000b\\u000a\\u202e\\"\\\\.yaml"');
    expect(printableName("x".repeat(5000))).toBe(`"${"x".repeat(120)}…"`);
  });

  it("names every unsafe key in one printable message", () => {
    const message = fileNamesProblem(
      ["Kptfile", "../escape.yaml", "a\u0000b.yaml", "ok.yaml", "/abs.yaml"],
      "spec.resources",
    );
    expect(message).toBe(
      'spec.resources has unsafe file names: "../escape.yaml" has a ".." segment, ' +
        '"a\\u0000b.yaml" contains a control or invisible character, "/abs.yaml" is an absolute path',
    );
    expect(message).not.toMatch(/[\u0000-\u001f]/);
    expect(fileNamesProblem(["Kptfile", "a/b.yaml"], "spec.resources")).toBeUndefined();
  });

  it("refuses a file below another file (git cannot hold both)", () => {
    expect(fileNamesProblem(["Kptfile", "a.yaml", "a.yaml/b.yaml"], "files")).toBe(
      'files has unsafe file names: "a.yaml/b.yaml" is below "a.yaml", which is a file',
    );
  });

  it("lists the first ten and counts the rest", () => {
    const names = Array.from({ length: 25 }, (_, i) => `../${i}.yaml`);
    const message = fileNamesProblem(names, "spec.resources") ?? "";
    expect(message).toContain('"../9.yaml" has a ".." segment and 15 more');
    expect(message).not.toContain("../10.yaml");
  });
});
