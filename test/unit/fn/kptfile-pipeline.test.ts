// The render's view of the Kptfile: the pipeline, every value read as written.
import { KptfileError, parsePipeline } from "../../../lib/fn";

const kptfile = (pipeline: string) =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n${pipeline}`;

describe("parsePipeline", () => {
  it("reads configMap values as written, as Go's map[string]string decoding does", () => {
    const text = kptfile(
      "  mutators:\n    - image: set-labels\n      configMap:\n        version: 1.10\n        on: true\n        tag: &t v1\n        again: *t\n",
    );
    expect(parsePipeline(text, "Kptfile").mutators[0].configMap).toEqual({
      version: "1.10",
      on: "true",
      tag: "v1",
      again: "v1",
    });
  });

  it("refuses a pipeline whose aliases expand past its bound, without expanding them", () => {
    const levels = ["  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (let i = 1; i <= 9; i++)
      levels.push(
        `  l${i}: &l${i} [${Array(10)
          .fill(`*l${i - 1}`)
          .join(", ")}]`,
      );
    // 10^10 nodes once expanded, from about 500 bytes
    expect(() => parsePipeline(kptfile(`${levels.join("\n")}\n`), "Kptfile")).toThrow(
      new KptfileError(
        "Kptfile",
        'Kptfile "Kptfile" is invalid: field `pipeline`: has more than 100000 nodes, or is nested more than 256 deep, once its aliases are expanded',
      ),
    );
  });

  it("refuses an alias inside its own anchor instead of following it forever", () => {
    const text =
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline: &p\n  x: *p\n";
    expect(() => parsePipeline(text, "Kptfile")).toThrow(/nested more than 256 deep/);
  });

  it("follows an alias to the nearest anchor of that name before it", () => {
    const text = kptfile(
      "  mutators:\n    - image: a\n      configMap: {k: &v one}\n    - image: b\n      configMap: {k: &v two, again: *v}\n",
    );
    expect(parsePipeline(text, "Kptfile").mutators[1].configMap).toEqual({
      k: "two",
      again: "two",
    });
  });

  it("takes an absent or empty pipeline as no functions", () => {
    const none = { mutators: [], validators: [] };
    expect(parsePipeline("apiVersion: kpt.dev/v1\nkind: Kptfile\n", "Kptfile")).toEqual(none);
    expect(parsePipeline(kptfile(""), "Kptfile")).toEqual(none);
  });

  it("refuses a bad field with the one KptfileError, naming the file and field", () => {
    const text = kptfile("  mutators:\n    - image: a\n      configMap: {n: [1]}\n");
    expect(() => parsePipeline(text, "sub/Kptfile")).toThrow(KptfileError);
    expect(() => parsePipeline(text, "sub/Kptfile")).toThrow(
      'Kptfile "sub/Kptfile" is invalid: field `pipeline.mutators[0].configMap.n`: must be a string',
    );
  });
});
