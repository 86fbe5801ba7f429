// Kubernetes label-selector strings (`app=web,tier!=db,env in (a,b),!legacy`), as used by
// kustomize replacement `labelSelector` / `annotationSelector`.

interface Requirement {
  key: string;
  op: "exists" | "!exists" | "in" | "notin";
  values: string[];
}

export type Selector = (labels: Record<string, string>) => boolean;

/** Parses a selector; the empty string selects everything. Throws on invalid syntax. */
export function parseLabelSelector(text: string): Selector {
  const requirements = splitRequirements(text).map(parseRequirement);
  return labels => requirements.every(r => matches(r, labels));
}

function matches(requirement: Requirement, labels: Record<string, string>): boolean {
  const present = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  switch (requirement.op) {
    case "exists":
      return present;
    case "!exists":
      return !present;
    case "in":
      return present && requirement.values.includes(labels[requirement.key]);
    case "notin":
      return !present || !requirement.values.includes(labels[requirement.key]);
  }
}

/** Splits on commas outside parentheses. */
function splitRequirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts.map(part => part.trim()).filter(part => part !== "");
}

const KEY = String.raw`[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?`;

function parseRequirement(text: string): Requirement {
  let match = new RegExp(`^!\\s*(${KEY})$`).exec(text);
  if (match) return { key: match[1], op: "!exists", values: [] };
  match = new RegExp(`^(${KEY})$`).exec(text);
  if (match) return { key: match[1], op: "exists", values: [] };
  match = new RegExp(`^(${KEY})\\s*(==|!=|=)\\s*([^,()\\s]*)$`).exec(text);
  if (match) return { key: match[1], op: match[3] === "!=" ? "notin" : "in", values: [match[4]] };
  match = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^()]*)\\)$`).exec(text);
  if (match) {
    const values = match[4]
      .split(",")
      .map(value => value.trim())
      .filter(value => value !== "");
    return { key: match[1], op: match[3] as "in" | "notin", values };
  }
  throw new Error(`unable to parse requirement: ${JSON.stringify(text)}`);
}
