// The administrator's function catalog (docs/function-catalog.md): which runtime runs each
// function a pipeline names, read from catalog.yaml and matched without building expressions.
export {
  builtinDefaults,
  defaultCatalog,
  describeCatalog,
  findEntry,
  type CatalogEntry,
  type EntryMatch,
  type EntryRun,
  type FunctionCatalog,
  type FunctionName,
  type Lookup,
  type RuntimeName,
} from "./catalog";
export {
  CatalogHolder,
  execDenial,
  rejectionNote,
  resolveEntry,
  type CatalogChange,
  type CatalogView,
  type RejectedCatalog,
} from "./holder";
export { matchesImage, parseImagePattern, type ImagePattern } from "./image-pattern";
export { parseImageReference, type ImageReference } from "./image-reference";
export {
  CATALOG_KEY,
  formatProblems,
  loadFunctionCatalog,
  type CatalogLoad,
  type RejectedEntry,
} from "./load";
export { execNameProblem, parseDuration } from "./formats";
