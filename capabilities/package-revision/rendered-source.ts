// What a new draft's source made, as its reconcile keeps it for the next one while the draft's
// push is handed in (writers.ts); its own file so that the source step and the registries of
// handed-in writes need not import each other.
import type { MergeConflict } from "../../lib/kpt";
import type { RenderedPackage } from "./render";
import type { SourceMutations } from "./variant-mutations";

export type CreationSource = "init" | "clone" | "copy" | "upgrade";

/** What a handed-in draft's reconcile keeps for the next one, which goes on once it landed. */
export interface RenderedSource {
  creationSource: CreationSource;
  files: Record<string, string>;
  renderStatus: RenderedPackage["renderStatus"];
  verdict: RenderedPackage["verdict"];
  conflicts?: MergeConflict[];
  mutations?: SourceMutations;
}
