// Walks every field of a resource like the catalog's setter functions: mappings are
// visited before their fields, paths are dotted with `[i]` for list elements
// (`spec.template.spec.containers[0].image`).
import type { Document, Scalar, YAMLMap } from "yaml";
import { isMap, isScalar, isSeq } from "yaml";
import { keyName } from "../../krm/nodes";

export interface WalkVisitor {
  mapping?(map: YAMLMap, path: string): void;
  scalar?(node: Scalar, path: string): void;
}

export function walkDocument(doc: Document, visitor: WalkVisitor): void {
  walk(doc.contents, "", visitor);
}

function walk(node: unknown, path: string, visitor: WalkVisitor): void {
  if (isMap(node)) {
    visitor.mapping?.(node, path);
    for (const pair of node.items) walk(pair.value, `${path}.${keyName(pair)}`, visitor);
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => walk(item, `${path}[${i}]`, visitor));
  } else if (isScalar(node)) {
    visitor.scalar?.(node, path);
  }
}

/** Go yaml line comments include the `#`; `yaml` stores only the text after it. */
export function lineComment(comment: string | null | undefined): string {
  return comment ? `#${comment}` : "";
}

/** Sets a line comment given with or without its leading `#`. */
export function commentText(comment: string): string {
  const text = comment.replace(/^#/, "");
  return text.startsWith(" ") ? text : ` ${text}`;
}
