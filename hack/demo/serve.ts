// Serves the demo repositories without a cluster: starts the git server, creates `blueprints`
// and `deployments`, prints their manifests (YAML, for `kubectl apply -f -`) and keeps serving.
//
// CLI: node hack/run-ts.mjs hack/demo/serve.ts --root DIR [--port N] [--user U --password P]
import { join } from "node:path";
import { startGitServer } from "../git-server";
import { createDemoRepositories, manifestsYaml } from "./repositories";

interface Args {
  root: string;
  port?: number;
  user?: string;
  password?: string;
}

const USAGE = "usage: serve.ts --root DIR [--port N] [--user U --password P]";

function parseArgs(argv: string[]): Args {
  const args: Args = { root: "" };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`missing value for ${flag}; ${USAGE}`);
    if (flag === "--root") args.root = value;
    else if (flag === "--port") args.port = Number.parseInt(value, 10);
    else if (flag === "--user") args.user = value;
    else if (flag === "--password") args.password = value;
    else throw new Error(`unknown flag ${flag}; ${USAGE}`);
  }
  if (!args.root) throw new Error(USAGE);
  if ((args.user === undefined) !== (args.password === undefined))
    throw new Error("--user and --password go together");
  return args;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const server = await startGitServer({
    root: join(args.root, "served"),
    port: args.port,
    user: args.user,
    password: args.password,
  });
  const credentials =
    args.user !== undefined && args.password !== undefined
      ? { username: args.user, password: args.password }
      : undefined;
  const demo = await createDemoRepositories(server, {
    cacheRoot: join(args.root, "cache"),
    credentials,
  });
  process.stdout.write(manifestsYaml(demo.manifests));
  process.stderr.write(
    `demo repositories ready at ${server.url} in ${demo.elapsedMs} ms; Ctrl-C stops the server\n`,
  );
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
