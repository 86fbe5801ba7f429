import { isPermanentError } from "../../../lib/controller/permanent-error";
import { assertSafeFileNames } from "../../../lib/packages/content-readiness";

describe("assertSafeFileNames", () => {
  it("throws a PermanentError naming every unsafe key, reason UnsafeFileNames", () => {
    let thrown: unknown;
    try {
      assertSafeFileNames(
        { Kptfile: "", "../escape.yaml": "", "a\u0000b.yaml": "" },
        "spec.resources",
      );
    } catch (error) {
      thrown = error;
    }
    expect(isPermanentError(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      reason: "UnsafeFileNames",
      message:
        'spec.resources has unsafe file names: "../escape.yaml" has a ".." segment, "a\\u0000b.yaml" contains a control or invisible character',
    });
    expect(() => assertSafeFileNames({ Kptfile: "", "a/b.yaml": "" }, "x")).not.toThrow();
  });
});
