import { K8s, kind, Log } from "pepr";
import { errorMessage } from "../shared/api-errors";
import { resolveKind } from "../shared/discovery";

type OnObject = (apiVersion: string, kindName: string, obj: kind.GenericKind) => void;

const watching = new Map<string, { close(): void }>();

/**
 * Watches every kind some set selects, so a new matching object fans out promptly. Kinds are
 * added as sets start selecting them; a kind the API does not serve yet is retried on the next
 * reconcile (the set is Stalled with NoMatchingTargets meanwhile).
 */
export async function watchSelectedKinds(kinds: Set<string>, onObject: OnObject): Promise<void> {
  for (const key of kinds) {
    if (watching.has(key)) continue;
    const slash = key.lastIndexOf("/");
    const [apiVersion, kindName] = [key.slice(0, slash), key.slice(slash + 1)];
    try {
      const type = await resolveKind(apiVersion, kindName);
      const watcher = K8s(kind.GenericKind, {
        kindOverride: {
          group: type.group,
          version: type.version,
          kind: type.kind,
          plural: type.plural,
        },
      }).Watch(obj => onObject(apiVersion, kindName, obj));
      await watcher.start();
      watching.set(key, watcher);
      Log.info(`watching ${key} for PackageVariantSet object selectors`);
    } catch (error) {
      Log.warn(`cannot watch ${key} yet: ${errorMessage(error)}`);
    }
  }
}
