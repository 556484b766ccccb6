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
execFileSync(kb, ["schema", "--format", "json-schema", "--out", generated,
                  "--records", path.join(source, "records")]);
for (const name of [...namespaces.map((ns) => `${ns}.schema.json`), "vocabulary.schema.json"]) {
  const committed = path.join(source, "schemas", name);
  const fresh = fs.readFileSync(path.join(generated, name), "utf8");
  if (!fs.existsSync(committed) || fs.readFileSync(committed, "utf8") !== fresh) {
    fail(`schemas/${name} is stale: run \`kb schema --format json-schema --out schemas\``);
  }
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
// The record schemas refer to the names of the knowledge base, as an editor resolves
// `vocabulary.schema.json` beside them.
ajv.addSchema(JSON.parse(fs.readFileSync(path.join(generated, "vocabulary.schema.json"), "utf8")));
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

// 5. The vocabulary: a typo'd setting key or engine name in a shipped gotcha, which only a
// schema that knows the records can see, is rejected by the schema as kb lint rejects it;
// the same names in another case or with `-` for `_` are accepted by both.
const vocabDir = path.join(work, "vocabulary");
fs.rmSync(vocabDir, { recursive: true, force: true });
fs.cpSync(path.join(source, "records"), vocabDir, { recursive: true });
const gotcha = "apc-warm-hit-differs-from-cold";
const original = fs.readFileSync(path.join(vocabDir, "gotchas", `${gotcha}.yaml`), "utf8");
const vocabCases = [
  ["typo'd setting key", (t) => t.replace("{config: {prefix_caching:", "{config: {prefix_cachng:"), false],
  ["typo'd engine", (t) => t.replace("{engine: vllm", "{engine: vlm"), false],
  ["another case and separator", (t) => t.replace("{config: {prefix_caching:", "{config: {Prefix-Caching:")
      .replace("{engine: vllm", "{engine: VLLM"), true],
  ["a bool setting's value that is no boolean", (t) => t.replace("{config: {prefix_caching: true}}",
      "{config: {prefix_caching: maybe}}"), false],
  ["a bool setting's value in another spelling", (t) => t.replace("{config: {prefix_caching: true}}",
      "{config: {prefix_caching: Enabled}}"), true],
];
// An enum setting's values, in a gotcha that tests one.
const enumGotcha = "dynamo-shared-frontend-kv-router-restart-misses-workers";
const enumCases = [
  ["an enum setting's value that it does not declare", (t) => t.replace("{config: {router_mode: kv}}",
      "{config: {router_mode: kv_awre}}"), false],
  ["an enum setting's synonym, another case and separator", (t) => t.replace(
      "{config: {router_mode: kv}}", "{config: {router_mode: KV_Aware}}"), true],
  ["an operator's operands", (t) => t.replace("{config: {router_mode: kv}}",
      "{config: {router_mode: {in: [kv, randm]}}}"), false],
  // A synonym a YAML reader gives as a number ("8.0" for an arch).
  ["an enum synonym written as a number", (t) => t.replace("{config: {router_mode: kv}}",
      "{hardware: {gpu_arch: 8.0}}"), true],
];
let vocabAgreed = 0;
const enumOriginal = fs.readFileSync(path.join(vocabDir, "gotchas", `${enumGotcha}.yaml`), "utf8");
const allVocabCases = [...vocabCases.map((c) => [gotcha, original, ...c]),
                       ...enumCases.map((c) => [enumGotcha, enumOriginal, ...c])];
for (const [gotcha, original, why, mutate, valid] of allVocabCases) {
  const text = mutate(original);
  if (text === original) { fail(`vocabulary: ${why}: the mutation did not apply to ${gotcha}`); continue; }
  fs.writeFileSync(path.join(vocabDir, "gotchas", `${gotcha}.yaml`), text);
  let lintOut;
  try {
    lintOut = execFileSync(kb, ["lint", "--format", "json", "--records", vocabDir], { encoding: "utf8", maxBuffer: 1 << 28 });
  } catch (e) {
    lintOut = e.stdout;
  }
  const lintRejects = JSON.parse(lintOut).diagnostics.some(
    (d) => d.severity === "error" && d.file.endsWith(`${gotcha}.yaml`));
  const schemaRejects = !accepts("gotchas", text).ok;
  if (lintRejects !== !valid || schemaRejects !== !valid) {
    fail(`vocabulary: ${why}: kb lint ${lintRejects ? "rejects" : "accepts"} it, the schema ` +
         `${schemaRejects ? "rejects" : "accepts"} it, expected both to ${valid ? "accept" : "reject"}`);
  } else {
    vocabAgreed++;
  }
  fs.writeFileSync(path.join(vocabDir, "gotchas", `${gotcha}.yaml`), original);
}

console.log(`${valid} valid records validate, ${rejected} invalid fixtures are rejected, ` +
            `${agreed}/${cases.length} mutations agree, ${vocabAgreed}/${allVocabCases.length} ` +
            `vocabulary cases agree`);
if (valid === 0 || rejected < 5 || cases.length < 10) fail("too few cases: the test would prove nothing");
process.exit(failures ? 1 : 0);
