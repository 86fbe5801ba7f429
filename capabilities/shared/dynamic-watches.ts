import type { KubeObject } from "../../lib/cluster/port";
import { errorMessage } from "../../lib/errors";
import type { OperatorContext } from "../context";
import { unreadableKind } from "./readable-kinds";

export type OnObject = (
  ctx: OperatorContext,
  apiVersion: string,
  kindName: string,
  obj: KubeObject,
) => void;

/**
 * Watches of kinds only known at run time: the kinds PackageVariantSets select and the kinds
 * PackageVariants inject. One watch per kind and subscriber; a kind the API does not serve yet
 * is tried again on the next call. Only readable kinds (the admin's allow-list, namespaced) are
 * watched: specs that name others are refused, and the operator has no RBAC to watch them.
 */
export class DynamicWatches {
  readonly #watching = new Map<string, { close(): void }>();
  readonly #refused = new Set<string>();

  constructor(
    private readonly purpose: string,
    private readonly onObject: OnObject,
  ) {}

  /** Ensures a watch on each "apiVersion/Kind" of `kinds`. */
  async ensure(ctx: OperatorContext, kinds: Iterable<string>): Promise<void> {
    for (const key of kinds) {
      if (this.#watching.has(key) || this.#refused.has(key)) continue;
      const slash = key.lastIndexOf("/");
      const [apiVersion, kindName] = [key.slice(0, slash), key.slice(slash + 1)];
      try {
        const unlisted = unreadableKind(key, apiVersion, kindName, true);
        const type = unlisted ? undefined : await ctx.discovery.resolveKind(apiVersion, kindName);
        const refused =
          unlisted ?? (type && unreadableKind(key, apiVersion, kindName, type.namespaced));
        if (refused || !type) {
          this.#refused.add(key);
          ctx.log.info(`not watching for ${this.purpose}: ${refused}`);
          continue;
        }
        const watcher = await ctx.cluster.watch(type, obj =>
          this.onObject(ctx, apiVersion, kindName, obj),
        );
        this.#watching.set(key, watcher);
        ctx.log.info(`watching ${key} for ${this.purpose}`);
      } catch (error) {
        ctx.log.warn(`cannot watch ${key} for ${this.purpose} yet: ${errorMessage(error)}`);
      }
    }
  }
}
