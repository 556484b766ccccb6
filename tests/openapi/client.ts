// A small client as a tooling author would write one against the types openapi-typescript
// generates from /api/v1/openapi.json (api.d.ts, beside it at test time). typed_client.mjs
// compiles it with `tsc --strict --noEmit`: a field the document leaves out, or types too
// loosely, fails the test.
import type { components, paths } from "./api";

type Json<P extends keyof paths, M extends "get" | "post"> = paths[P][M] extends {
  responses: { 200: { content: { "application/json": infer T } } };
}
  ? T
  : never;
type Finding = components["schemas"]["Finding"];
type CheckBody = NonNullable<paths["/api/v1/check"]["post"]["requestBody"]>["content"]["application/json"];

async function get<P extends keyof paths>(base: string, path: string): Promise<Json<P, "get">> {
  const res = await fetch(base + path);
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  if (res.headers.get("KB-Schema-Version") !== "1.0") throw new Error("unknown schema version");
  return (await res.json()) as Json<P, "get">;
}

export async function report(base: string): Promise<string[]> {
  const out: string[] = [];
  const list = await get<"/api/v1/gotchas">(base, "/api/v1/gotchas?severity=blocker,major");
  for (const g of list.items) out.push(`${g.severity.toUpperCase()} ${g.id}: ${g.title} (${g.evidence.state})`);
  const next: string | null = list.next_page_token;
  if (next !== null) out.push(`more after ${next}`);

  const one = await get<"/api/v1/{type}/{slug}">(base, "/api/v1/gotchas/alpha-blocker");
  if (one.type === "gotcha") {
    const workaround: string = one.workaround ?? "(none)";
    out.push(`${one.title ?? one.id} [${one.severity}/${one.status}]: ${workaround}`);
    for (const a of one.affects) out.push(`affects ${a.id ?? a.raw}`);
    for (const f of one.fixes) out.push(`${f.engine.raw}: ${f.resolution} in ${f.fixed_in ?? "-"} ${f.cause ?? ""}`);
    out.push(`evidence: ${one.evidence.summary}; referenced by ${one.referenced_by.length}`);
  } else if (one.type === "engine") {
    out.push(`${one.name ?? one.id}: ${one.gotchas.length} gotchas`);
  }

  const body: CheckBody = {
    deployment: { engines: [{ engine: "vllm", version: "0.26.0" }], config: { prefix_caching: true } },
    ignore: ["gotchas/epsilon-info", { id: "gotchas/kappa-info", reason: "tracked", expires: "2027-01-01" }],
  };
  const res = await fetch(base + "/api/v1/check?fail_on=major", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const check = (await res.json()) as Json<"/api/v1/check", "post">;
  const worst: Finding | undefined = check.findings[0];
  for (const f of check.findings) {
    const where = f.services.map((s) => `${s.name ?? "(one service)"} as ${s.role ?? "?"}`).join(", ");
    out.push(`${f.id} ${f.title} [${f.severity}${f.possible ? ", possible" : ""}] on ${where}`);
    out.push(`  why: ${f.why.join("; ")}`, `  do: ${f.workaround}`);
    for (const fix of f.fixes) out.push(`  fix: ${fix.advice} (${fix.running ?? "?"} -> ${fix.fixed_in ?? "none"})`);
    for (const l of f.locations) out.push(`  at ${l.file}:${l.line}:${l.column}`);
  }
  const blockers: number = check.counts.blocker;
  out.push(`${blockers} blockers; fails: ${check.fails ?? false}; worst ${worst?.id ?? "none"}`);
  for (const d of check.diagnostics) out.push(`${d.severity}[${d.code}] ${d.message}`);
  for (const s of check.deployment.services) out.push(`service ${s.name} (${s.role}) runs ${s.engines.map((e) => e.engine).join("+")}`);

  const found = await get<"/api/v1/search">(base, "/api/v1/search?q=cache");
  for (const h of found.hits) out.push(`${h.rank.toFixed(2)} ${h.type ?? "?"} ${h.title}: ${h.snippet}`);
  if (found.corrected) out.push(`showing ${found.suggestion ?? ""}`);
  return out;
}
