import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CertFiles {
  caCert: string;
  caKey: string;
  apiserverCert: string;
  apiserverKey: string;
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  webhookCert: string;
  webhookKey: string;
}

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
}

function ecKey(path: string): void {
  openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path]);
}

/** Issues a leaf certificate signed by the CA; `extensions` is an OpenSSL v3 extension section. */
function issue(
  dir: string,
  name: string,
  subject: string,
  extensions: string,
  ca: CertFiles,
): void {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const ext = join(dir, `${name}.ext`);
  ecKey(key);
  openssl(["req", "-new", "-key", key, "-subj", subject, "-out", csr]);
  writeFileSync(ext, extensions);
  openssl([
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    ca.caCert,
    "-CAkey",
    ca.caKey,
    "-CAcreateserial",
    "-days",
    "365",
    "-sha256",
    "-extfile",
    ext,
    "-out",
    join(dir, `${name}.crt`),
  ]);
}

const clientExt =
  "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n";

/**
 * A client certificate for `/O=<group>/CN=<user>` signed by the control plane's CA (a node's
 * kubelet is `system:node:<name>` in `system:nodes`). Returns the certificate and key paths.
 */
export function issueClientCert(
  dir: string,
  name: string,
  subject: string,
  ca: CertFiles,
): { certificate: string; key: string } {
  issue(dir, name, subject, clientExt, ca);
  return { certificate: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}

const serverExt = (sans: string) =>
  `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n` +
  `extendedKeyUsage=serverAuth\nsubjectAltName=${sans}\n`;

/**
 * Writes a throwaway PKI for the local control plane: one CA, the apiserver's serving cert,
 * an admin client cert (group system:masters), the service-account key pair, and the serving
 * cert of the module's webhook on localhost (the apiserver runs on the same host).
 * `apiserverSans` adds names to the apiserver's cert (a node's Pods reach it by another address).
 */
export function writeCerts(dir: string, apiserverSans: string[] = []): CertFiles {
  const files: CertFiles = {
    caCert: join(dir, "ca.crt"),
    caKey: join(dir, "ca.key"),
    apiserverCert: join(dir, "apiserver.crt"),
    apiserverKey: join(dir, "apiserver.key"),
    adminCert: join(dir, "admin.crt"),
    adminKey: join(dir, "admin.key"),
    serviceAccountKey: join(dir, "sa.key"),
    serviceAccountPub: join(dir, "sa.pub"),
    webhookCert: join(dir, "webhook.crt"),
    webhookKey: join(dir, "webhook.key"),
  };
  ecKey(files.caKey);
  openssl([
    "req",
    "-x509",
    "-new",
    "-key",
    files.caKey,
    "-subj",
    "/CN=porch-pepr-local-ca",
    "-days",
    "365",
    "-sha256",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
    "-out",
    files.caCert,
  ]);
  issue(
    dir,
    "apiserver",
    "/CN=kube-apiserver",
    serverExt(
      "IP:127.0.0.1,IP:::1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default," +
        "DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local" +
        apiserverSans.map(san => `,${san}`).join(""),
    ),
    files,
  );
  issue(dir, "admin", "/O=system:masters/CN=admin", clientExt, files);
  issue(dir, "webhook", "/CN=localhost", serverExt("DNS:localhost,IP:127.0.0.1,IP:::1"), files);
  ecKey(files.serviceAccountKey);
  openssl(["pkey", "-in", files.serviceAccountKey, "-pubout", "-out", files.serviceAccountPub]);
  return files;
}
