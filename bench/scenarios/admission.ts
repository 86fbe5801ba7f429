// Admission latency of a PackageVariantSet with ten CEL expressions, at 1, 10 and 50 requests
// in flight, measured two ways:
// - api: `create?dryRun=All` sent to the API server with the admin client certificate, what a
//   user's `kubectl apply --dry-run=server` waits for (API server work + the webhook call);
// - webhook: the same object as an AdmissionReview POSTed straight to the module's HTTPS
//   validate endpoint (our code alone, plus TLS and HTTP);
// and the API server's own floor: the same dry run for a ConfigMap of the same size, which no
// webhook sees.
import { randomUUID } from "node:crypto";
import { Agent, request } from "node:https";
import { mapLimit } from "../../lib/controller/concurrency";
import { paths } from "../kube";
import { round } from "../metrics";
import type { BenchContext } from "./context";
import { BLUEPRINTS, UPSTREAM_PACKAGE, type Fleet } from "./fleet";

export const CONCURRENCY = [1, 10, 50];
const REQUESTS_PER_WORKER = 20;
const MIN_REQUESTS = 200;

export interface Latency {
  p50: number;
  p99: number;
  requests: number;
}

export type AdmissionLatency = Record<"api" | "webhook" | "apiFloor", Record<string, Latency>>;

const expr = (key: string, valueExpr: string) => ({ key, valueExpr });

/** Ten expressions over repository, target and the defaults, each type-checked by the webhook. */
export const tenExpressionSet = (ns: string) => ({
  apiVersion: "config.porch.kpt.dev/v1alpha2",
  kind: "PackageVariantSet",
  metadata: { name: "admission-probe", namespace: ns },
  spec: {
    upstream: { repo: BLUEPRINTS, package: UPSTREAM_PACKAGE, revision: 1 },
    targets: [
      {
        repositorySelector: { matchLabels: { bench: "admission" } },
        template: {
          downstream: { packageExpr: "packageDefault + '-' + repository.labels['shard']" },
          labelExprs: [
            expr("shard", "repository.labels['shard']"),
            expr("repo", "repository.name"),
            expr("tier", "repository.labels['shard'] == '0' ? 'canary' : 'fleet'"),
          ],
          annotationExprs: [
            expr("bench/source", "repoDefault + '/' + packageDefault"),
            expr("bench/upper", "repository.name.upperAscii()"),
            expr("bench/starts", "repository.name.startsWith('deploy') ? 'yes' : 'no'"),
          ],
          packageContext: {
            dataExprs: [
              expr("region", "repository.labels['shard'] + '-region'"),
              expr("name", "packageDefault.lowerAscii()"),
            ],
          },
          injectors: [{ nameExpr: "repository.name + '-endpoints'" }],
        },
      },
    ],
  },
});

function percentile(sorted: number[], p: number): number {
  return round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)], 2);
}

async function latencies(concurrency: number, send: () => Promise<void>): Promise<Latency> {
  const requests = Math.max(MIN_REQUESTS, concurrency * REQUESTS_PER_WORKER);
  const times: number[] = [];
  await mapLimit(Array.from({ length: requests }), concurrency, async () => {
    const start = performance.now();
    await send();
    times.push(performance.now() - start);
  });
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), requests };
}

/** The validate URL the API server calls (from the ValidatingWebhookConfiguration). */
async function validateUrl(ctx: BenchContext): Promise<string> {
  const list = await ctx.api.json<{ items: { webhooks: { clientConfig: { url?: string } }[] }[] }>(
    "GET",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
  );
  const url = list.items.flatMap(c => c.webhooks).find(w => w.clientConfig.url)?.clientConfig.url;
  if (!url) throw new Error("no ValidatingWebhookConfiguration with a URL");
  return url;
}

function post(url: string, agent: Agent, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "Content-Type": "application/json" } },
      res => {
        let text = "";
        res.on("data", c => (text += c));
        res.on("end", () => resolve(text));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const review = (object: object) =>
  JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: randomUUID(),
      kind: { group: "config.porch.kpt.dev", version: "v1alpha2", kind: "PackageVariantSet" },
      resource: {
        group: "config.porch.kpt.dev",
        version: "v1alpha2",
        resource: "packagevariantsets",
      },
      name: "admission-probe",
      namespace: (object as { metadata: { namespace: string } }).metadata.namespace,
      operation: "CREATE",
      userInfo: { username: "bench" },
      object,
      dryRun: true,
    },
  });

export async function admissionLatency(ctx: BenchContext, fleet: Fleet): Promise<AdmissionLatency> {
  const set = tenExpressionSet(fleet.ns);
  const url = await validateUrl(ctx);
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: ctx.ca });
  const viaApi = async () => {
    const res = await ctx.api.send("POST", `${paths.pvs(fleet.ns)}?dryRun=All`, set);
    if (res.status !== 201) throw new Error(`dry-run create: ${res.status} ${res.body}`);
  };
  const viaWebhook = async () => {
    const answer = JSON.parse(await post(url, agent, review(set))) as {
      response?: { allowed?: boolean; status?: { message?: string } };
    };
    if (!answer.response?.allowed)
      throw new Error(`webhook denied: ${answer.response?.status?.message ?? "no response"}`);
  };
  const configMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "admission-probe", namespace: fleet.ns },
    data: { set: JSON.stringify(set.spec) },
  };
  const floor = async () => {
    const res = await ctx.api.send(
      "POST",
      `/api/v1/namespaces/${fleet.ns}/configmaps?dryRun=All`,
      configMap,
    );
    if (res.status !== 201) throw new Error(`dry-run ConfigMap: ${res.status} ${res.body}`);
  };
  const result: AdmissionLatency = { api: {}, webhook: {}, apiFloor: {} };
  for (const c of CONCURRENCY) {
    // A warm-up round at the same concurrency first: connections open, code paths compiled.
    const measured = async (send: () => Promise<void>) => {
      await latencies(c, send);
      return latencies(c, send);
    };
    result.api[c] = await measured(viaApi);
    result.webhook[c] = await measured(viaWebhook);
    result.apiFloor[c] = await measured(floor);
  }
  agent.destroy();
  return result;
}
