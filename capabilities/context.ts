import { cachedKind, withCachedReads } from "../lib/cluster/cached-reads";
import type { Cluster } from "../lib/cluster/port";
import {
  PackageRevisionKind,
  PackageVariantKind,
  PackageVariantSetKind,
  RepositoryKind,
  type PackageRevisionResources,
  type PackageVariant,
  type PackageVariantSet,
  type Repository,
} from "../crd-types";
import type { Slots } from "../lib/controller/concurrency";
import type { RenderLimits } from "../lib/fn/render-limits";
import { WatchCache } from "../lib/controller/watch-cache";
import type { CapacityRetries, CatalogSource, FunctionRuntime } from "../lib/fn";
import { MutationChecks, VariantIndex } from "../lib/package-variant";
import { SetIndex } from "../lib/package-variant-set";
import {
  ADMISSION_REVIEWS_DEADLINE_MS,
  ReviewGate,
  reviewGateSettings,
} from "../lib/validation/access-review-gate";
import { AccessReviews } from "./shared/access-reviews";
import { ContentStores } from "./shared/content-stores";
import { Discovery } from "./shared/discovery";
import type { RevisionCache } from "./shared/revision-cache";
import { newRenderStatuses, type RenderStatuses } from "../lib/package-revision/render-statuses";

type LogFn = (message: string, fields?: Record<string, unknown>) => void;

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

// The shapes of two caches are declared here rather than beside the code that fills them
// (package-variant-set/variants.ts, package-variant/status.ts): those files take the context,
// and the context importing them back made an import cycle.

/** Every PackageVariant the capability's watch delivered, by the set UID they are labelled with. */
export type VariantCache = WatchCache<PackageVariant>;

/** What the controllers keep between reconciles: caches fed by watches, and indexes. */
export interface Caches {
  /** PackageRevisions, by name, package and owning PackageVariant. */
  readonly revisions: RevisionCache;
  /** PackageVariants, by the set that made them. */
  readonly variants: VariantCache;
  /** Which PackageVariants a revision or an injected object concerns. */
  readonly variantIndex: VariantIndex;
  /** Which PackageVariantSets an upstream, a Repository or a selected object concerns. */
  readonly setIndex: SetIndex;
  /** Render status of each downstream revision, as of the version last rendered. */
  readonly renderStatuses: RenderStatuses;
  /** Downstream revisions whose last mutation check found nothing to change, and as of what. */
  readonly mutationChecks: MutationChecks;
  /** PackageRevisionResources by name, without their files: which version each is at. */
  readonly resources: WatchCache<PackageRevisionResources>;
  readonly sets: WatchCache<PackageVariantSet>;
  readonly repositories: WatchCache<Repository>;
}

/** How drafts are rendered: the slots renders share, the wait when none is free, the runtime. */
export interface RenderSettings {
  readonly slots: Slots;
  readonly requeueDelayMs: number;
  readonly runtime: FunctionRuntime;
  /** The function catalog the runtime reads: it changes without a restart. */
  readonly catalog: CatalogSource;
  /**
   * Revisions whose last render failed for want of a function (ExecDenied, FunctionUnavailable)
   * → the catalog generation they failed under: rendered again under a newer one.
   */
  readonly catalogFailures: Map<string, number>;
  /** Revisions whose last render failed for want of shared capacity: when to render again. */
  readonly capacityRetries: CapacityRetries;
  /** A render's own bounds (lib/fn/render-limits.ts); the defaults when absent. */
  readonly limits?: RenderLimits;
}

/**
 * Everything a reconciler or an admission rule reaches outside its arguments, handed to it
 * instead of module singletons: the cluster (the port), the caches, the git content stores,
 * discovery, access reviews, render settings, a clock and a logger. One is made per process
 * (capabilities/operator.ts); unit tests make their own around an in-memory cluster
 * (test/support/operator-context.ts).
 */
export interface OperatorContext {
  /** Reads of the watched kinds come from their caches, writes go to the API (lib/cluster/cached-reads.ts). */
  readonly cluster: Cluster;
  /** The API server itself, uncached: for a judgement that must not lag (admission, deletion). */
  readonly api: Cluster;
  readonly caches: Caches;
  readonly stores: ContentStores;
  readonly discovery: Discovery;
  readonly reviews: AccessReviews;
  readonly render: RenderSettings;
  readonly now: () => Date;
  readonly log: Logger;
}

export interface ContextParts {
  cluster: Cluster;
  log: Logger;
  revisions: RevisionCache;
  variants: VariantCache;
  render: RenderSettings;
  now?: () => Date;
  gitCacheRoot?: string;
}

/** One per process: every admission request's access reviews share it. */
function reviewGate(log: Logger, now: () => Date): ReviewGate {
  const settings = reviewGateSettings(process.env, ADMISSION_REVIEWS_DEADLINE_MS);
  for (const warning of settings.warnings) log.warn(warning);
  return new ReviewGate(settings, () => now().getTime());
}

export function createContext(parts: ContextParts): OperatorContext {
  const { log } = parts;
  const now = parts.now ?? (() => new Date());
  const caches: Caches = {
    revisions: parts.revisions,
    variants: parts.variants,
    variantIndex: new VariantIndex(),
    setIndex: new SetIndex(),
    renderStatuses: newRenderStatuses(),
    mutationChecks: new MutationChecks(),
    resources: new WatchCache<PackageRevisionResources>({}),
    sets: new WatchCache<PackageVariantSet>({}),
    // By namespace: a set's templates read its namespace's Repositories at every reconcile.
    repositories: new WatchCache<Repository>({ namespace: r => r.metadata?.namespace }),
  };
  // The kinds whose caches hold whole objects: a reconcile reads them there (lib/cluster/cached-reads.ts).
  const cluster = withCachedReads(parts.cluster, [
    cachedKind(PackageRevisionKind, caches.revisions.cache),
    cachedKind(PackageVariantKind, caches.variants),
    cachedKind(PackageVariantSetKind, caches.sets),
    cachedKind(RepositoryKind, caches.repositories),
  ]);
  return {
    cluster,
    api: parts.cluster,
    caches,
    stores: new ContentStores(cluster, log, parts.gitCacheRoot),
    discovery: new Discovery(cluster),
    reviews: new AccessReviews(cluster, reviewGate(log, now)),
    render: parts.render,
    now,
    log,
  };
}
