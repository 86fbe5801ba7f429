import { parseDocument } from "yaml";
import { responseFromOutput } from "../../../lib/fn/run-output";

// A resource whose YAML aliases expand past yaml's bound made the comparison of a function's
// output with its input throw a bare ReferenceError out of the runtime; it is now a failure
// naming the bound, as every other exceeded bound of a function is.
const LAUGHS = [
  "kind: ConfigMap",
  "a: &a [x, x, x, x, x, x, x, x, x, x]",
  `b: &b [${Array(10).fill("*a").join(", ")}]`,
  `c: [${Array(10).fill("*b").join(", ")}]`,
].join("\n");

const OUTPUT = [
  "apiVersion: config.kubernetes.io/v1",
  "kind: ResourceList",
  "items:",
  "- kind: ConfigMap",
  "  metadata:",
  "    annotations:",
  "      internal.config.kubernetes.io/id: '0'",
].join("\n");

it("ends a run whose input expands too many aliases with a failure naming the bound", () => {
  const request = {
    items: [{ doc: parseDocument(LAUGHS), path: "cm.yaml", index: 0 }],
    functionConfig: undefined,
  };
  const response = responseFromOutput(request, { stdout: OUTPUT, stderr: "", exitCode: 0 });
  expect(response.bound).toBe("FunctionOutputLimit");
  expect(response.failure).toBe(
    "output item 0 or its input: its YAML aliases expand more than 100 times, the most a function's output is compared with its input",
  );
  expect(response.items).toEqual([]);
});
