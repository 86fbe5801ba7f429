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
