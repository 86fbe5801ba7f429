import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";

export const examplesDir = resolve(__dirname, "..", "..", "examples");

export interface Example {
  file: string;
  path: string;
  kind: string;
  object: { apiVersion: string; kind: string; metadata: { name: string }; spec?: unknown };
  /** `# expect: <text>` lines: each text must appear in the denial message. */
  expected: string[];
}

/** The example manifests of one folder; invalid-*.yaml carry their expected denial texts. */
export function loadExamples(folder: string): Example[] {
  const dir = join(examplesDir, folder);
  return readdirSync(dir)
    .filter(f => f.endsWith(".yaml"))
    .sort()
    .map(file => {
      const path = join(dir, file);
      const text = readFileSync(path, "utf8");
      const object = parse(text) as Example["object"];
      const expected = [...text.matchAll(/^# expect: (.*)$/gm)].map(m => m[1]);
      return { file, path, kind: object.kind, object, expected };
    });
}
