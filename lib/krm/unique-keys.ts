// Duplicate map keys, found in one pass. The `yaml` parser's own check compares each key with
// every earlier key of its map: a ConfigMap of 20,000 data keys took minutes to parse (most of
// what a tenant's large map cost a merge), so parsing turns it off and asks this instead.
import { isAlias, isMap, isScalar, isSeq, type Node } from "yaml";

/**
 * The first repeated key of any map in the tree, or undefined when there is none. Keys repeat
 * as the parser's check says they do: scalars with the same value (so `1` and `"1"` differ),
 * anything else only when it is the very same node.
 */
export function duplicateKey(root: unknown): unknown {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isAlias(node)) continue;
    // One at a time: spreading a sequence of 400,000 items overflows the call stack.
    if (isSeq(node)) for (const item of node.items) pending.push(item);
    if (!isMap(node)) continue;
    const seen = new Set<unknown>();
    for (const pair of node.items) {
      const key: unknown = isScalar(pair.key) ? pair.key.value : pair.key;
      if (seen.has(key)) return key;
      seen.add(key);
      pending.push(pair.key as Node, pair.value);
    }
  }
  return undefined;
}
