// The raw text form of commit objects (what `git cat-file commit` prints), shared by the clients.
import type { CommitSpec, Signature } from "./client";
import { safeIdentity } from "./identity";

/** `Name <email> <seconds> <+hhmm>` → Signature. */
export function parseSignature(text: string): Signature {
  const m = /^(.*) <([^>]*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(text.trim());
  if (!m) return { name: text, email: "", timestamp: 0, timezoneOffset: 0 };
  const minutes = Number(m[5]) * 60 + Number(m[6]);
  return {
    name: m[1],
    email: m[2],
    timestamp: Number(m[3]),
    timezoneOffset: m[4] === "-" ? -minutes : minutes,
  };
}

/** Date in git's raw format (`<seconds> <+hhmm>`), as GIT_AUTHOR_DATE accepts it. */
export function formatSignature(sig: Signature): { date: string } {
  const sign = sig.timezoneOffset < 0 ? "-" : "+";
  const abs = Math.abs(sig.timezoneOffset);
  const tz = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
  return { date: `${sig.timestamp} ${tz}` };
}

export function parseCommit(raw: string): CommitSpec {
  const split = raw.indexOf("\n\n");
  const head = split >= 0 ? raw.slice(0, split) : raw;
  const message = split >= 0 ? raw.slice(split + 2) : "";
  const spec: CommitSpec = {
    tree: "",
    parents: [],
    message,
    author: parseSignature(""),
    committer: parseSignature(""),
  };
  for (const line of head.split("\n")) {
    const sp = line.indexOf(" ");
    const [key, value] = [line.slice(0, sp), line.slice(sp + 1)];
    if (key === "tree") spec.tree = value;
    else if (key === "parent") spec.parents.push(value);
    else if (key === "author") spec.author = parseSignature(value);
    else if (key === "committer") spec.committer = parseSignature(value);
  }
  return spec;
}

/** A signature for a commit written now; the identity is made safe for a header line. */
export function signatureNow(who: { name: string; email: string }, now = new Date()): Signature {
  return {
    name: safeIdentity(who.name),
    email: safeIdentity(who.email),
    timestamp: Math.floor(now.getTime() / 1000),
    timezoneOffset: 0,
  };
}

/** isomorphic-git's signature: timezoneOffset in minutes west of UTC (like Date.getTimezoneOffset). */
export interface IsoSignature {
  name: string;
  email: string;
  timestamp: number;
  timezoneOffset: number;
}

export function toIsoSignature(sig: Signature): IsoSignature {
  return {
    name: sig.name,
    email: sig.email,
    timestamp: sig.timestamp,
    timezoneOffset: -sig.timezoneOffset,
  };
}

export function fromIsoSignature(sig: IsoSignature): Signature {
  return {
    name: sig.name,
    email: sig.email,
    timestamp: sig.timestamp,
    timezoneOffset: -sig.timezoneOffset || 0,
  };
}
