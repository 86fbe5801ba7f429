// The Pod runtime's inputs: what the administrator's function catalog says about one function
// image that runs as a Pod, and the settings every function Pod shares. The catalog fills them;
// the Pod runtime (one warm Pod per image, reused) consumes them.

/** Kubernetes quantities, e.g. `{ cpu: "250m", memory: "128Mi" }`. */
export interface PodResourceList {
  cpu?: string;
  memory?: string;
}

/** How one function image runs as a Pod. */
export interface PodFunction {
  /** The image as the pipeline names it; the function container runs it. */
  image: string;
  /**
   * The image's entrypoint, which the wrapper runs with the ResourceList on stdin. No registry
   * is asked for the image's configuration, so the catalog says it (kpt's catalog functions
   * use `/usr/local/bin/function`).
   */
  entrypoint: string[];
  resources: { requests?: PodResourceList; limits?: PodResourceList };
  /** One run's limit; past it the run fails with a timeout. */
  timeoutMs: number;
  /** A warm Pod is deleted after it has been idle this long. */
  idleMs: number;
}

/** Settings shared by every function Pod (the catalog's `pod` section). */
export interface PodRuntimeSettings {
  /** Where function Pods run: a namespace the administrator chose for them. */
  namespace: string;
  /** A ServiceAccount with no API access; its token is not mounted either way. */
  serviceAccountName: string;
  /** The image whose wrapper binary an init container copies into each function Pod. */
  wrapperImage: string;
}
