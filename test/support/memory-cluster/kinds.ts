import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import {
  PackageRevisionKind,
  PackageRevisionResourcesKind,
  PackageVariantKind,
  PackageVariantSetKind,
  RepositoryKind,
} from "../../../crd-types/kinds";
import {
  CustomResourceDefinitionKind,
  EventKind,
  NamespaceKind,
  SecretKind,
  SelfSubjectReviewKind,
  SubjectAccessReviewKind,
} from "../../../lib/cluster/kinds";
import { ApiError } from "../../../lib/cluster/errors";
import type { ApiResource, ResourceKind } from "../../../lib/cluster/port";

/** What the fake serves: the kinds, and how each behaves where kinds differ. */

export interface ServeOptions {
  /** A /status subresource: status written only through it. Default true. */
  statusSubresource?: boolean;
  /** Fields a field selector may name besides metadata.name and metadata.namespace. */
  selectableFields?: string[];
  /** Created for an answer, never stored (the review kinds). */
  review?: boolean;
}

export interface Served {
  kind: ResourceKind;
  statusSubresource: boolean;
  selectable: Set<string>;
  review: boolean;
}

export const kindKey = (kind: Pick<ResourceKind, "group" | "plural">) =>
  `${kind.group}/${kind.plural}`;

export function served(kind: ResourceKind, options: ServeOptions = {}): Served {
  return {
    kind: { ...kind },
    statusSubresource: options.statusSubresource ?? true,
    selectable: new Set([
      "metadata.name",
      "metadata.namespace",
      ...(options.selectableFields ?? []),
    ]),
    review: options.review ?? false,
  };
}

interface CrdVersion {
  name: string;
  subresources?: { status?: object };
  selectableFields?: { jsonPath: string }[];
}

/** Our CRDs as crds/*.yaml declare them, so the fake refuses the field selectors they refuse. */
function fromCrd(kind: ResourceKind): Served {
  const file = join(__dirname, "../../../crds", `${kind.plural}.${kind.group}.yaml`);
  const crd = parse(readFileSync(file, "utf8")) as { spec: { versions: CrdVersion[] } };
  const version = crd.spec.versions.find(v => v.name === kind.version);
  if (!version) throw new Error(`${file} has no version ${kind.version}`);
  return served(kind, {
    statusSubresource: version.subresources?.status !== undefined,
    selectableFields: (version.selectableFields ?? []).map(f => f.jsonPath.replace(/^\./, "")),
  });
}

const involved = ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"];

let crdKinds: Served[] | undefined; // parsed once per test file: the YAML is large

/** Served unless a test says otherwise; built-ins with the field selectors Kubernetes takes. */
export const defaultKinds = (): Served[] => [
  ...(crdKinds ??= [
    PackageRevisionKind,
    PackageRevisionResourcesKind,
    PackageVariantKind,
    PackageVariantSetKind,
    RepositoryKind,
  ].map(fromCrd)),
  served(SecretKind, { statusSubresource: false, selectableFields: ["type"] }),
  served(NamespaceKind, { selectableFields: ["status.phase"] }),
  served(EventKind, {
    statusSubresource: false,
    selectableFields: [
      ...involved.map(f => `involvedObject.${f}`),
      "reason",
      "reportingComponent",
      "source",
      "type",
    ],
  }),
  served(CustomResourceDefinitionKind),
  served(SelfSubjectReviewKind, { review: true }),
  served(SubjectAccessReviewKind, { review: true }),
];

const unknownResource = () =>
  new ApiError(404, "NotFound", "the server could not find the requested resource");

/** The kinds served, by group and plural, as discovery and every request see them. */
export class Registry {
  readonly #kinds = new Map(defaultKinds().map(s => [kindKey(s.kind), s]));

  serve(kind: ResourceKind, options?: ServeOptions): void {
    this.#kinds.set(kindKey(kind), served(kind, options));
  }

  /** The kind as served, or the API's 404 for a resource it does not know. */
  served(kind: ResourceKind): Served {
    const found = this.#kinds.get(kindKey(kind));
    if (!found || found.kind.version !== kind.version) throw unknownResource();
    return found;
  }

  /** A kind whose objects are stored: the review kinds take nothing but create. */
  storable(kind: ResourceKind): Served {
    const found = this.served(kind);
    if (found.review)
      throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method");
    return found;
  }

  /** Discovery of one group/version: its kinds and their /status subresources. */
  discovery(group: string, version: string): ApiResource[] {
    const found = [...this.#kinds.values()].filter(
      s => s.kind.group === group && s.kind.version === version,
    );
    if (found.length === 0) throw unknownResource();
    return found.flatMap(({ kind, statusSubresource, review }) => {
      const resource = { name: kind.plural, kind: kind.kind, namespaced: kind.namespaced };
      const status = statusSubresource && !review;
      return status ? [resource, { ...resource, name: `${kind.plural}/status` }] : [resource];
    });
  }
}
