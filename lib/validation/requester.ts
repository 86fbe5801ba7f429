import { isDeepStrictEqual } from "node:util";

/** Who sent an admission request, as the API server authenticated them (AdmissionReview userInfo). */
export interface RequestUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * A request is the operator's own when it authenticates as the account the operator runs as.
 * Never decided by anything the client chooses (field manager, labels, annotations): any
 * client can name a controller's field manager.
 */
export function isOperatorRequest(user: RequestUser | undefined, operator: string | undefined) {
  return !!operator && !!user?.username && user.username === operator;
}

/** A Secret the operator would read on an object's behalf, and the field that names it. */
export interface SecretUse {
  field: string;
  namespace: string;
  name: string;
}

interface Named {
  metadata?: { namespace?: string };
  spec?: unknown;
}

const secretFields: Record<string, { field: string; path: string[] }> = {
  Repository: { field: "spec.git.secretRef", path: ["git", "secretRef", "name"] },
  PackageRevision: {
    field: "spec.source.cloneFrom.git.secretRef",
    path: ["source", "cloneFrom", "git", "secretRef", "name"],
  },
};

function at(value: unknown, path: string[]): unknown {
  return path.reduce<unknown>(
    (v, key) => (v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined),
    value,
  );
}

/**
 * The Secrets whose use the requester must be allowed to read. On an update, only when the spec
 * changed: a new URL or branch sends the same credentials somewhere else, so any change counts,
 * while an unchanged spec (a finalizer, a label) lets an object made earlier still be handled.
 */
export function secretUses(kind: string, obj: Named, old: Named | undefined): SecretUse[] {
  const rule = secretFields[kind];
  if (!rule) return [];
  const name = at(obj.spec, rule.path);
  if (typeof name !== "string" || name === "") return [];
  if (old && isDeepStrictEqual(old.spec, obj.spec)) return [];
  return [{ field: rule.field, namespace: obj.metadata?.namespace ?? "", name }];
}

/** The denial for a Secret the requester may not read; the operator would read it for them. */
export function secretUseProblem(use: SecretUse, user: RequestUser): string {
  return `${use.field}: ${JSON.stringify(user.username ?? "")} may not get Secret ${JSON.stringify(use.name)} in namespace ${JSON.stringify(use.namespace)}; an object may only use credentials that whoever applies it can read`;
}

/**
 * The denial for a lifecycle move that is an approval (APPROVAL_MOVES) by a user without the
 * approval right; Porch's RBAC names the right `update` on `packagerevisions/approval`.
 */
export function approvalProblem(
  from: string,
  to: string,
  user: RequestUser,
  namespace: string,
): string {
  return `spec.lifecycle: ${JSON.stringify(user.username ?? "")} may not update packagerevisions/approval in namespace ${JSON.stringify(namespace)}; moving a revision from ${from} to ${to} is an approval`;
}
