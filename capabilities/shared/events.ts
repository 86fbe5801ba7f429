import { K8s, kind, Log } from "pepr";
import { errorMessage } from "./api-errors";

interface Involved {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string };
}

const reportingComponent = "porch-pepr";
const reportingInstance = process.env.HOSTNAME ?? "porch-pepr";

/** Records a Kubernetes Event on an object; best effort, a failure is only logged. */
export async function recordEvent(
  obj: Involved,
  type: "Normal" | "Warning",
  reason: string,
  message: string,
): Promise<void> {
  const now = new Date();
  try {
    await K8s(kind.CoreEvent).Create({
      metadata: { namespace: obj.metadata?.namespace, generateName: `${obj.metadata?.name}.` },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: obj.metadata?.name,
        namespace: obj.metadata?.namespace,
        uid: obj.metadata?.uid,
      },
      type,
      reason,
      message,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      source: { component: reportingComponent },
      reportingComponent,
      reportingInstance,
    });
  } catch (error) {
    Log.warn(
      `could not record event ${reason} on ${obj.kind} ${obj.metadata?.name}: ${errorMessage(error)}`,
    );
  }
}
