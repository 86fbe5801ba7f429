// The graph of relative imports among a tree's .ts files, read with a pattern rather than the
// compiler: a test of the layout must not depend on the program it checks compiling.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** File (relative to the root, "/"-separated) → the files it imports. */
export type ImportGraph = Map<string, string[]>;

// `import ... from "./x"`, `export ... from "./x"` (type-only included: a cycle of types still
// ties the files together), `import "./x"` and `require("./x")`. Only relative specifiers: a
// package cannot be part of a cycle of our files.
const IMPORT_PATTERNS = [
  /^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']*)["']/gm,
  /^\s*import\s*["'](\.{1,2}\/[^"']*)["']/gm,
  /\brequire\(\s*["'](\.{1,2}\/[^"']*)["']\s*\)/g,
];

export function tsFiles(root: string, directories: string[]): string[] {
  return directories.flatMap(directory =>
    readdirSync(join(root, directory), { recursive: true, encoding: "utf8" })
      .filter(file => file.endsWith(".ts"))
      .map(file => join(directory, file).split("\\").join("/")),
  );
}

/** "./x" from a file: x.ts, or x/index.ts; undefined when it is neither (a .json, a .mjs). */
function resolveSpecifier(root: string, from: string, specifier: string): string | undefined {
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, "index.ts"), base]) {
    if (candidate.endsWith(".ts") && existsSync(candidate)) {
      return relative(root, candidate).split("\\").join("/");
    }
  }
  return undefined;
}

export function importGraph(root: string, files: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const source = readFileSync(join(root, file), "utf8");
    const imports = new Set<string>();
    for (const pattern of IMPORT_PATTERNS) {
      for (const match of source.matchAll(pattern)) {
        const target = resolveSpecifier(root, file, match[1]);
        if (target) imports.add(target);
      }
    }
    graph.set(file, [...imports]);
  }
  return graph;
}

/**
 * The cycles of the graph, one per strongly connected component (Tarjan), each as a path that
 * ends where it starts: enough to show which imports to break.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, order.get(target)!));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) components.push(component);
  };
  for (const file of [...graph.keys()].sort()) if (!order.has(file)) visit(file);
  return components.map(component => cycleWithin(graph, new Set(component)));
}

/** One cycle through a component's first file, by breadth-first search back to it. */
function cycleWithin(graph: ImportGraph, component: Set<string>): string[] {
  const start = [...component].sort()[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of graph.get(file) ?? []) {
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        return [...path, start];
      }
      if (component.has(target) && !previous.has(target)) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
