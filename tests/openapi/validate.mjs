// The OpenAPI document against the server it describes: every route the server lists
// (GET /api/v1) is in the document; every operation in the document is driven against a
// real `kb serve` with a request that succeeds and one that fails (and each list in CSV
// and NDJSON, and a method the path does not answer); every answer's status and content
// type are declared, the ETag, KB-Schema-Version, Location, Cache-Control, Retry-After and
// Allow headers it sends are declared for its status, and its JSON body validates against
// the declared schema. A cacheable answer is asked for again with its ETag (304).
// usage: node validate.mjs KB_BINARY RECORDS
import Ajv2020 from "ajv/dist/2020.js";
import { startServe } from "./serve.mjs";

const [kb, records] = process.argv.slice(2);
let failures = 0;
const fail = (msg) => { failures++; console.error("FAIL " + msg); };

const { base, server } = await startServe(kb, records);

try {
  const doc = await (await fetch(base + "/api/v1/openapi.json")).json();
  if (doc.openapi !== "3.1.0") fail(`openapi is ${doc.openapi}`);

  // Refs point into the document; ajv sees the component schemas as $defs of one schema.
  const rewrite = (v) => JSON.parse(JSON.stringify(v).replaceAll("#/components/schemas/", "doc#/$defs/"));
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  ajv.addSchema({ $id: "doc", $defs: rewrite(doc.components.schemas) });
  const validators = new Map();
  const validatorOf = (schema) => {
    const key = JSON.stringify(schema);
    if (!validators.has(key)) validators.set(key, ajv.compile(rewrite(schema)));
    return validators.get(key);
  };

  // 1. Every route the server answers under /api, /healthz and /metrics is documented.
  const index = await (await fetch(base + "/api/v1")).json();
  for (const r of index.routes) {
    if (!/^\/(api|healthz|metrics)/.test(r.path)) continue;
    const op = doc.paths[r.path]?.[r.method.toLowerCase()];
    if (!op) fail(`${r.method} ${r.path} is not in the OpenAPI document`);
  }

  // Checks one answer against the operation; `expect` is "ok" or "error".
  const driven = new Map();
  async function check(label, op, res, expect) {
    const status = String(res.status);
    const type = (res.headers.get("content-type") || "").split(";")[0].trim();
    const body = await res.text();
    const declared = op.responses[status];
    if (!declared) return fail(`${label}: status ${status} is not declared (${body.slice(0, 200)})`);
    if ((expect === "ok") !== (res.status < 400))
      fail(`${label}: expected ${expect}, got ${status} ${body.slice(0, 200)}`);
    // Every header of these the server sends is declared for the operation and status.
    const headers = Object.keys(declared.headers || {}).map((h) => h.toLowerCase());
    for (const h of ["ETag", "KB-Schema-Version", "Location", "Cache-Control", "Retry-After", "Allow"]) {
      if (res.headers.has(h) && !headers.includes(h.toLowerCase()))
        fail(`${label}: sends ${h}, not declared for ${status}`);
    }
    const marks = driven.get(op) || new Set();
    marks.add(res.status < 400 ? "ok" : "error");
    driven.set(op, marks);
    if (!declared.content) {
      if (body.length) fail(`${label}: ${status} declares no body, got ${body.length} bytes`);
      return;
    }
    const media = declared.content[type];
    if (!media) return fail(`${label}: content type ${type} is not declared for ${status}`);
    if (type !== "application/json") return;
    const validate = validatorOf(media.schema);
    if (!validate(JSON.parse(body)))
      fail(`${label}: ${status} does not match its schema: ${ajv.errorsText(validate.errors)}`);
  }

  const slugs = {};
  for (const t of ["gotchas", "engines", "oracles", "results", "settings", "models"]) {
    const list = await (await fetch(`${base}/api/v1/${t}`)).json();
    if (!list.items || list.items.length === 0) fail(`GET /api/v1/${t}: the test tree needs one ${t} record`);
    else slugs[t] = list.items[0].id.split("/")[1];
  }
  const examples = { q: "cache", type: "engine" };
  const deployment = JSON.stringify({ engines: [{ engine: "vllm", version: "0.26.0" }, { engine: "lmcache" }] });
  const bodies = {
    "/api/v1/check": deployment,
    "/api/v1/check/batch": `{"deployments": [${deployment}]}`,
    "/api/v1/triage": JSON.stringify({ log: "ERROR Remote NIXL agent engine ID mismatch\n" }),
  };

  // 2. Every operation, once succeeding and once failing.
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const pathParams = op.parameters.filter((p) => p.in === "path");
      let concrete = [path];
      for (const p of pathParams) {
        const values = p.schema.enum || [null];
        concrete = concrete.flatMap((c) => values.map((v) => c.replace(`{${p.name}}`, v ?? `{${p.name}}`)));
      }
      concrete = concrete
        .filter((c) => !/\/(\w+)\/\{slug\}$/.test(c) || slugs[c.match(/\/(\w+)\/\{slug\}$/)[1]])
        .map((c) => c.replace(/\/(\w+)\/\{slug\}$/, (_, t) => `/${t}/${slugs[t]}`));
      const query = new URLSearchParams();
      for (const p of op.parameters) if (p.in === "query" && p.required) query.set(p.name, examples[p.name]);
      const init = { method: method.toUpperCase(), redirect: "manual" };
      if (init.method === "POST") init.headers = { "Content-Type": "application/json" };
      for (const url of concrete) {
        const qs = query.toString() ? "?" + query : "";
        const send = (u, extra = {}) => fetch(base + u, { ...init, body: bodies[path], ...extra });
        const first = await send(url + qs);
        const etag = first.headers.get("etag");
        await check(`${method} ${url}${qs}`, op, first, "ok");
        if (etag) {
          await check(`${method} ${url}${qs} If-None-Match`, op,
                      await send(url + qs, { headers: { "If-None-Match": etag } }), "ok");
        }
        const bad = url + (qs ? qs + "&" : "?") + "no_such_parameter=1";
        await check(`${method} ${bad}`, op, await send(bad), "error");
        if (op.parameters.some((p) => p.name === "format")) {
          for (const f of ["csv", "ndjson"]) {
            await check(`${method} ${url} as ${f}`, op, await send(`${url}${qs ? qs + "&" : "?"}format=${f}`), "ok");
          }
        }
        if (path.endsWith("{slug}")) {
          await check(`${method} unknown slug`, op, await send(url.replace(/[^/]+$/, "no-such-record")), "error");
        }
        if (init.method === "POST") {
          await check(`${method} ${url} bad body`, op, await send(url, { body: "{" }), "error");
        }
        await check(`DELETE ${url}`, op, await fetch(base + url, { method: "DELETE" }), "error");
      }
    }
  }
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const marks = driven.get(op) || new Set();
      if (!marks.has("ok") || !marks.has("error")) fail(`${method} ${path} was not driven both ways`);
    }
  }
} finally {
  server.kill();
}
if (failures) { console.error(`${failures} failures`); process.exit(1); }
console.log("the OpenAPI document describes every answer");
