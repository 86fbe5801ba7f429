// What a function Pod's object says: whether it serves, is still starting, or will never serve
// (and why, in the kubelet's words), and what a pool needs to adopt it after a restart.
import type { ContainerStatus, Pod } from "../../cluster/kinds";
import { FUNCTION_CONTAINER, IDLE_ANNOTATION, TEMPLATE_HASH_LABEL, TOKEN_ENV } from "./manifest";

export type Readiness =
  | { state: "ready"; address: string }
  | { state: "starting"; detail: string }
  | { state: "failed"; reason: string; message: string };

/**
 * Waiting reasons that do not heal by waiting: the image cannot be pulled or named, the
 * container cannot be made, or it keeps exiting. ErrImagePull is the first failed pull; kpt's
 * users see the same error from `docker pull`, so the runs fail now rather than at the start
 * bound.
 */
const HOPELESS = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "ErrImageNeverPull",
  "InvalidImageName",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
  "CrashLoopBackOff",
]);

const clip = (text: string | undefined, max = 300) =>
  (text ?? "").length > max ? `${(text ?? "").slice(0, max)}…` : (text ?? "");

function containerFailure(
  status: ContainerStatus,
  init: boolean,
): { reason: string; message: string } | undefined {
  const { waiting, terminated } = status.state ?? {};
  const which = `${init ? "init container" : "container"} ${status.name}`;
  if (waiting?.reason && HOPELESS.has(waiting.reason))
    return {
      reason: waiting.reason,
      message: `${which}: ${clip(waiting.message) || waiting.reason}`,
    };
  // An init container that ended well is done; the function container must never end.
  if (terminated && (!init || terminated.exitCode !== 0)) {
    const why = [terminated.reason, clip(terminated.message)].filter(Boolean).join(": ");
    return {
      reason: init ? "WrapperInstallFailed" : "WrapperExited",
      message: `${which} exited with code ${terminated.exitCode}${why ? ` (${why})` : ""}`,
    };
  }
  return undefined;
}

/** Where the Pod stands: Ready with an address, still starting (and on what), or failed. */
export function podReadiness(pod: Pod): Readiness {
  const status = pod.status ?? {};
  for (const c of status.initContainerStatuses ?? []) {
    const failed = containerFailure(c, true);
    if (failed) return { state: "failed", ...failed };
  }
  for (const c of status.containerStatuses ?? []) {
    const failed = containerFailure(c, false);
    if (failed) return { state: "failed", ...failed };
  }
  if (status.phase === "Failed" || status.phase === "Succeeded") {
    const why = [status.reason, clip(status.message)].filter(Boolean).join(": ");
    return {
      state: "failed",
      reason: "PodEnded",
      message: `Pod phase ${status.phase}${why ? ` (${why})` : ""}`,
    };
  }
  const ready = status.conditions?.find(c => c.type === "Ready")?.status === "True";
  if (ready && status.podIP) return { state: "ready", address: status.podIP };
  return { state: "starting", detail: pendingDetail(pod) };
}

/** The most telling thing about a Pod that is not Ready yet, for a timeout's message. */
function pendingDetail(pod: Pod): string {
  const status = pod.status ?? {};
  const unmet = (status.conditions ?? []).find(c => c.status !== "True" && (c.reason || c.message));
  const waiting = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]
    .map(c => c.state?.waiting?.reason && `${c.name}: ${c.state.waiting.reason}`)
    .filter(Boolean);
  const parts = [
    `phase ${status.phase ?? "unknown"}`,
    unmet &&
      `${unmet.type}=${unmet.status} ${[unmet.reason, clip(unmet.message)].filter(Boolean).join(": ")}`,
    ...waiting,
  ];
  return parts.filter(Boolean).join("; ");
}

/** A function Pod as the API lists it, with what adopting it takes. */
export interface ObservedPod {
  name: string;
  /** Its template hash label: the function it serves. */
  key?: string;
  /** Its bearer token (the wrapper's environment in the Pod's spec). */
  token?: string;
  idleMs?: number;
  terminating: boolean;
  readiness: Readiness;
}

export function observePod(pod: Pod): ObservedPod {
  const idle = pod.metadata?.annotations?.[IDLE_ANNOTATION];
  const container = pod.spec?.containers.find(c => c.name === FUNCTION_CONTAINER);
  return {
    name: pod.metadata?.name ?? "",
    key: pod.metadata?.labels?.[TEMPLATE_HASH_LABEL] || undefined,
    token: container?.env?.find(e => e.name === TOKEN_ENV)?.value || undefined,
    idleMs: idle !== undefined && /^\d+$/.test(idle) ? Number(idle) : undefined,
    terminating:
      pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null,
    readiness: podReadiness(pod),
  };
}
