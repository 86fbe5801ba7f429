import { Agent, get } from "node:https";
import { kubectlOk } from "../support/kubectl";

// The webhook server keeps an idle connection open longer than the API server's 90 s idle
// timeout, so the API server always closes first and never sends a request into a connection
// the webhook is closing ("connection reset by peer", a valid write denied under load).
// Node's default closes after 5 s: a request 6 s after the last one then needs a new socket.

interface WebhookConfiguration {
  webhooks: { clientConfig: { url: string; caBundle: string } }[];
}

function webhookEndpoint(): { url: URL; ca: Buffer } {
  const config = JSON.parse(
    kubectlOk(["get", "validatingwebhookconfiguration", "pepr-porch-pepr", "-o", "json"]),
  ) as WebhookConfiguration;
  const { url, caBundle } = config.webhooks[0].clientConfig;
  return { url: new URL(url), ca: Buffer.from(caBundle, "base64") };
}

/** GET /healthz through the agent; whether it went over a socket kept from an earlier request. */
function healthz(agent: Agent, url: URL, ca: Buffer): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = get(new URL("/healthz", url), { agent, ca }, res => {
      res.resume();
      res.on("end", () => resolve(req.reusedSocket));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

it("keeps an idle webhook connection open past Node's 5 s default", async () => {
  const { url, ca } = webhookEndpoint();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await healthz(agent, url, ca);
    await new Promise(resolve => setTimeout(resolve, 6_000));
    expect(await healthz(agent, url, ca)).toBe(true);
  } finally {
    agent.destroy();
  }
});
