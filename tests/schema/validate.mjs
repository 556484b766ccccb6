// The JSON Schemas against kb lint, as an editor's YAML language server would use them:
// the committed schemas/ are what `kb schema` generates; every valid record validates;
// every invalid fixture whose error is a schema error is rejected; and on mutations of the
// shipped records (a field removed, misspelt, mistyped), the schema and `kb lint` agree.
// usage: node validate.mjs KB_BINARY SOURCE_DIR WORK_DIR
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { parse, parseDocument } from "yaml";

const [kb, source, work] = process.argv.slice(2);
const namespaces = ["gotchas", "engines", "oracles", "results", "settings", "models"];
// Codes a JSON Schema can see; the rest need the other records or the file's path.
const schemaCodes = new Set([
  "schema.unknown-field", "schema.missing-field", "schema.type", "schema.enum", "schema.date",
  "schema.url", "schema.empty-value", "schema.invalid-key", "version.invalid",
  "predicate.invalid", "predicate.unknown-operator",
]);
let failures = 0;
const fail = (msg) => { failures++; console.error("FAIL " + msg); };

// 1. The committed schemas are current.
const generated = path.join(work, "schemas");
fs.rmSync(generated, { recursive: true, force: true });
fs.mkdirSync(generated, { recursive: true });
execFileSync(kb, ["schema", "--format", "json-schema", "--out", generated]);
for (const ns of namespaces) {
  const name = `${ns}.schema.json`;
  const committed = path.join(source, "schemas", name);
  const fresh = fs.readFileSync(path.join(generated, name), "utf8");
  if (!fs.existsSync(committed) || fs.readFileSync(committed, "utf8") !== fresh) {
    fail(`schemas/${name} is stale: run \`kb schema --format json-schema --out schemas\``);
  }
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validators = {};
for (const ns of namespaces) {
  validators[ns] = ajv.compile(JSON.parse(fs.readFileSync(path.join(generated, `${ns}.schema.json`), "utf8")));
}

function namespaceOf(file) {
  const parts = file.split(path.sep);
  for (let i = parts.length - 2; i >= 0; i--) if (namespaces.includes(parts[i])) return parts[i];
  return null;
}

// Whether the schema accepts `text` as a record of `ns` (false when it is not YAML).
function accepts(ns, text) {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length) return { ok: false, why: doc.errors[0].message };
  const value = doc.toJS();
  const ok = validators[ns](value);
  return { ok, why: ok ? "" : ajv.errorsText(validators[ns].errors) };
}

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : /\.ya?ml$/.test(e.name) ? [p] : [];
  });
}

// 2. Every valid record validates.
let valid = 0;
for (const file of [...walk(path.join(source, "records")), ...walk(path.join(source, "tests/data/valid"))]) {
  const ns = namespaceOf(path.relative(source, file));
  if (!ns) continue;
  const r = accepts(ns, fs.readFileSync(file, "utf8"));
  if (!r.ok) fail(`${path.relative(source, file)} is valid but the schema rejects it: ${r.why}`);
  valid++;
}

// 3. Every invalid fixture with a schema error is rejected.
let rejected = 0;
for (const file of walk(path.join(source, "tests/data/invalid"))) {
  const text = fs.readFileSync(file, "utf8");
  const m = /^# expect: (\S+) \S+(?: in (\S+))?/.exec(text);
  if (!m || !schemaCodes.has(m[1])) continue;
  const ns = m[2] || "gotchas";
  const r = accepts(ns, text);
  if (r.ok) fail(`${path.relative(source, file)} (${m[1]}) is accepted by the schema`);
  rejected++;
}

// 4. Mutations of the shipped records: the schema and kb lint agree on each.
const mutDir = path.join(work, "mutations");
fs.rmSync(mutDir, { recursive: true, force: true });
const cases = [];
// One tree holds every mutation, each under a slug of its own, linted in one run.
function add(ns, slug, data, why) {
  const dir = path.join(mutDir, ns);
  fs.mkdirSync(dir, { recursive: true });
  const text = typeof data === "string" ? data : stringify(data);
  const name = `${slug}-m${cases.length}`;
  fs.writeFileSync(path.join(dir, `${name}.yaml`), text);
  cases.push({ file: `${ns}/${name}.yaml`, ns, slug, text, why });
}
function stringify(obj) {
  const doc = parseDocument("{}");
  doc.contents = doc.createNode(obj);
  return doc.toString();
}
const mutations = [
  ["unknown field", (r) => ({ ...r, severty: "major" })],
  ["wrong date", (r) => (r.date ? { ...r, date: "2026-02-30" } : r.updated ? { ...r, updated: "2026-13-01" } : null)],
  ["quoted count", (r) => ("passed" in r ? { ...r, passed: String(r.passed) } : null)],
  ["bad enum", (r) => (r.severity ? { ...r, severity: "blockerr" } : r.type ? { ...r, type: "boolean" } : null)],
  ["list as text", (r) => (Array.isArray(r.aliases) ? { ...r, aliases: "x" } : { ...r, aliases: "x" })],
  ["bad version range", (r) => (Array.isArray(r.affects) && r.affects.some((a) => typeof a === "object")
      ? { ...r, affects: r.affects.map((a) => (typeof a === "object" ? { ...a, versions: ">=0.26 <<" } : a)) } : null)],
  ["nested unknown field", (r) => (Array.isArray(r.references) && r.references.length
      ? { ...r, references: [{ ...r.references[0], nmber: 1 }] } : null)],
];
const shipped = walk(path.join(source, "records"));
for (const file of shipped) {
  const ns = namespaceOf(path.relative(source, file));
  if (!ns) continue;
  const record = parse(fs.readFileSync(file, "utf8"));
  const slug = path.basename(file).replace(/\.ya?ml$/, "");
  for (const [why, mutate] of mutations) {
    const m = mutate(record);
    if (m) add(ns, slug, m, why);
  }
  const required = validators[ns].schema.required || [];
  for (const field of required) {
    const copy = { ...record };
    delete copy[field];
    add(ns, slug, copy, `without ${field}`);
  }
}
let agreed = 0;
let out;
try {
  out = execFileSync(kb, ["lint", "--format", "json", "--records", mutDir], {
    encoding: "utf8", maxBuffer: 1 << 28 });
} catch (e) {
  out = e.stdout;
}
const rejectedByLint = new Set();
for (const d of JSON.parse(out).diagnostics) {
  if (d.severity === "error" && schemaCodes.has(d.code)) rejectedByLint.add(d.file);
}
for (const c of cases) {
  const lintRejects = rejectedByLint.has(c.file);
  const schemaRejects = !accepts(c.ns, c.text).ok;
  if (lintRejects !== schemaRejects) {
    fail(`${c.ns}/${c.slug} (${c.why}): kb lint ${lintRejects ? "rejects" : "accepts"} it, the schema ${schemaRejects ? "rejects" : "accepts"} it`);
  } else {
    agreed++;
  }
}

console.log(`${valid} valid records validate, ${rejected} invalid fixtures are rejected, ` +
            `${agreed}/${cases.length} mutations agree`);
if (valid === 0 || rejected < 5 || cases.length < 10) fail("too few cases: the test would prove nothing");
process.exit(failures ? 1 : 0);
