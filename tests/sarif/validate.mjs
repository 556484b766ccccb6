// kb's SARIF against the OASIS SARIF 2.1.0 JSON Schema (sarif-schema-2.1.0.json here, see
// SOURCES.md) and against the rules GitHub code scanning applies on upload that the schema
// does not express. The logs come from real inputs:
//   1. `kb check FILES... --format sarif` for every deployment of
//      tests/data/upstream/expected.yaml, run in that folder as tests/upstream runs it,
//      twice (automationDetails.id and the fingerprints must not change between the two);
//      one that fails closed (exit 2) must say so: not an empty successful run;
//   2. `kb check --each FILES...`: one run per input, in one log;
//   3. every file of those deployments typed as `x`, `./x` and an absolute path (from its
//      own folder and from tests/data/upstream): the same fingerprints, artifact URIs and
//      automationDetails.id for each;
//   4. `kb lint --format sarif` on the shipped records, and on the shipped records with
//      each tests/data/invalid fixture added (as tests/unit/diagnostic_codes_test.cpp
//      places it): the fixture's problem must be a result.
// The GitHub rules: rules[].properties.tags without repeats and at most 20; at most one
// entry in a result's `locations` (the rest go to relatedLocations); every result's
// ruleId names a rule of its run (and ruleIndex, when given, points at that rule); no
// rule id twice; automationDetails.id present, and no two runs of one log with the same
// tool and automationDetails.id (GitHub rejects a file with two runs in one category);
// at most 20 runs per log, 25,000 results and 25,000 rules per run.
// Stops at the first failure, printing what failed and ajv's errors.
// usage: node validate.mjs KB_BINARY SOURCE_DIR WORK_DIR
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { parse } from "yaml";

const [kbBinary, source, work] = process.argv.slice(2);
const records = path.join(source, "records");
const upstream = path.join(source, "tests/data/upstream");
const schemaFile = path.join(source, "tests/sarif/sarif-schema-2.1.0.json");

const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8"));
// The schema is draft-07 (ajv's default draft); formats uri, uri-reference, date-time.
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validateSarif = ajv.compile(schema);

const count = { documents: 0, runs: 0, results: 0, kb: 0 };

function die(label, message, detail) {
  console.error(`FAIL ${label}\n  ${message}`);
  if (detail) console.error(detail.replace(/^/gm, "    "));
  console.error(`(after ${count.documents} SARIF documents validated)`);
  process.exit(1);
}

// The value at a JSON pointer of ajv's instancePath, for the error report.
function valueAt(doc, pointer) {
  let v = doc;
  for (const part of pointer.split("/").slice(1)) {
    if (v === undefined || v === null) return undefined;
    v = v[part.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return v;
}

function ajvReport(doc, errors) {
  const lines = [ajv.errorsText(errors, { separator: "\n" })];
  for (const e of errors.slice(0, 20)) {
    const value = JSON.stringify(valueAt(doc, e.instancePath)) ?? "undefined";
    lines.push(`${e.instancePath || "/"} ${e.message} (${e.schemaPath} ${JSON.stringify(e.params)}): ` +
               `value ${value.length > 300 ? value.slice(0, 300) + "..." : value}`);
  }
  if (errors.length > 20) lines.push(`... and ${errors.length - 20} more errors`);
  return lines.join("\n");
}

// Runs kb in cwd; any exit code outside `allowed` fails.
function kb(args, cwd, allowed = [0, 1, 2]) {
  const label = `(cd ${cwd} && kb ${args.join(" ")})`;
  const r = spawnSync(kbBinary, args, { cwd, encoding: "utf8", maxBuffer: 1 << 28, timeout: 60_000 });
  count.kb++;
  if (r.error) die(label, `kb did not run: ${r.error.message}`);
  if (!allowed.includes(r.status)) {
    die(label, `exit ${r.status ?? r.signal}, expected ${allowed.join(" or ")}`, r.stderr.trim());
  }
  return { label, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tagsProblem(tags) {
  if (!Array.isArray(tags)) return "is not an array";
  const seen = new Set();
  for (const t of tags) {
    const key = JSON.stringify(t);
    if (seen.has(key)) return `has ${key} twice (GitHub rejects a tags array with repeated items)`;
    seen.add(key);
  }
  if (tags.length > 20) return `has ${tags.length} tags (GitHub rejects more than 20 per rule)`;
  return null;
}

// What GitHub code scanning requires of an upload beyond the schema.
function githubRules(label, doc) {
  if (doc.runs.length > 20) die(label, `${doc.runs.length} runs: GitHub rejects more than 20 runs per file`);
  const categories = new Map();
  doc.runs.forEach((run, i) => {
    const where = `runs[${i}]`;
    const id = run.automationDetails?.id;
    if (typeof id !== "string" || id === "") {
      die(label, `${where}.automationDetails.id is missing: GitHub tells analyses (categories) apart by it`);
    }
    const category = `${run.tool.driver.name}\u0000${id}`;
    if (categories.has(category)) {
      die(label, `${where} has the tool (${run.tool.driver.name}) and automationDetails.id (${id}) of ` +
                 `runs[${categories.get(category)}]: GitHub rejects two runs of one tool and category in a file`);
    }
    categories.set(category, i);
    const rules = run.tool.driver.rules || [];
    if (rules.length > 25000) die(label, `${where} has ${rules.length} rules: GitHub rejects more than 25,000`);
    const ruleIds = new Map();
    rules.forEach((rule, r) => {
      if (ruleIds.has(rule.id)) {
        die(label, `${where}.tool.driver.rules[${r}].id ${rule.id} is also rules[${ruleIds.get(rule.id)}].id`);
      }
      ruleIds.set(rule.id, r);
    });
    const components = [["tool.driver", run.tool.driver],
                        ...(run.tool.extensions || []).map((x, k) => [`tool.extensions[${k}]`, x])];
    for (const [name, component] of components) {
      (component.rules || []).forEach((rule, r) => {
        if (rule.properties && "tags" in rule.properties) {
          const problem = tagsProblem(rule.properties.tags);
          if (problem) {
            die(label, `${where}.${name}.rules[${r}] (${rule.id}).properties.tags ${problem}`,
                JSON.stringify(rule.properties.tags));
          }
        }
      });
    }
    const results = run.results || [];
    if (results.length > 25000) die(label, `${where} has ${results.length} results: GitHub rejects more than 25,000`);
    results.forEach((result, k) => {
      const at = `${where}.results[${k}]`;
      const n = (result.locations || []).length;
      if (n > 1) {
        die(label, `${at} (${result.ruleId}) has ${n} locations: GitHub shows the first alone; ` +
                   `the others belong in relatedLocations`, JSON.stringify(result.locations, null, 1));
      }
      const ruleId = result.ruleId ?? result.rule?.id;
      if (typeof ruleId !== "string") die(label, `${at} has no ruleId`);
      if (!ruleIds.has(ruleId)) {
        die(label, `${at}.ruleId ${ruleId} is not the id of a rule in ${where}.tool.driver.rules`,
            `rules: ${[...ruleIds.keys()].join(" ") || "none"}`);
      }
      const index = result.ruleIndex ?? result.rule?.index;
      if (index !== undefined && rules[index]?.id !== ruleId) {
        die(label, `${at}.ruleIndex ${index} points at ${rules[index]?.id ?? "no rule"}, not at ${ruleId}`);
      }
    });
  });
}

// The parsed log of one kb invocation, after the schema and GitHub's rules.
function sarif(run, expectRuns) {
  let doc;
  try {
    doc = JSON.parse(run.stdout);
  } catch (e) {
    die(run.label, `standard output is not JSON: ${e.message}`,
        `${run.stdout.slice(0, 400)}\nstderr: ${run.stderr.slice(0, 400)}`);
  }
  if (!validateSarif(doc)) {
    die(run.label, `does not validate against the SARIF 2.1.0 schema (${validateSarif.errors.length} errors):`,
        ajvReport(doc, validateSarif.errors));
  }
  githubRules(run.label, doc);
  if (expectRuns !== undefined && doc.runs.length !== expectRuns) {
    die(run.label, `${doc.runs.length} runs, expected ${expectRuns}`);
  }
  count.documents++;
  count.runs += doc.runs.length;
  for (const r of doc.runs) count.results += (r.results || []).length;
  return doc;
}

// A check that could not run whole (exit 2) says so in its log: a run that did not
// execute successfully, or a result; never an empty successful run.
function assertFailedClosed(run, doc) {
  const says = doc.runs.some((r) => r.invocations?.[0]?.executionSuccessful === false ||
                                    (r.results || []).length > 0);
  if (!says) {
    die(run.label, "exit 2 (the check could not run whole) but the SARIF is an empty successful run: " +
                   "no runs[].invocations[0].executionSuccessful false and no result",
        `stderr: ${run.stderr.trim().slice(0, 600)}\n` +
        `invocations: ${JSON.stringify(doc.runs.map((r) => r.invocations)).slice(0, 600)}`);
  }
}

function uris(result) {
  const out = [];
  for (const l of [...(result.locations || []), ...(result.relatedLocations || [])]) {
    const a = l.physicalLocation?.artifactLocation;
    if (a) out.push(`${a.uriBaseId ?? ""}|${a.uri}`);
  }
  return out;
}

// Per run: automationDetails.id, and each result's rule, fingerprints and artifact URIs.
function identity(doc) {
  return doc.runs.map((r) => ({
    automationDetails: r.automationDetails?.id,
    results: (r.results || []).map((x) => ({
      ruleId: x.ruleId, partialFingerprints: x.partialFingerprints ?? null, uris: uris(x) })),
  }));
}

// The first difference between two identities, or null.
function difference(a, b) {
  if (a.length !== b.length) return `${a.length} runs against ${b.length}`;
  for (let i = 0; i < a.length; i++) {
    if (a[i].automationDetails !== b[i].automationDetails) {
      return `runs[${i}].automationDetails.id ${JSON.stringify(a[i].automationDetails)} against ` +
             JSON.stringify(b[i].automationDetails);
    }
    if (a[i].results.length !== b[i].results.length) {
      return `runs[${i}] has ${a[i].results.length} results against ${b[i].results.length}`;
    }
    for (let k = 0; k < a[i].results.length; k++) {
      const x = a[i].results[k], y = b[i].results[k];
      const fields = Object.keys(x).filter((f) => JSON.stringify(x[f]) !== JSON.stringify(y[f]));
      if (fields.length) {
        return `runs[${i}].results[${k}]: ${fields.join(", ")} differ\n` +
               `${JSON.stringify(x)}\nagainst\n${JSON.stringify(y)}`;
      }
    }
  }
  return null;
}

const deployments = parse(fs.readFileSync(path.join(upstream, "expected.yaml"), "utf8")).deployments;
const checkArgs = (files, ...more) => ["check", ...more, ...files, "--records", records, "--format", "sarif"];

// 1. Every deployment, twice.
let failedClosed = 0;
for (const d of deployments) {
  const first = kb(checkArgs(d.files), upstream);
  const doc = sarif(first, 1);
  if (first.status === 2) {
    assertFailedClosed(first, doc);
    failedClosed++;
  }
  const again = kb(checkArgs(d.files), upstream);
  const diff = difference(identity(doc), identity(sarif(again, 1)));
  if (diff) die(again.label, `${d.id}: a second invocation on the same input differs`, diff);
}
console.log(`deployments: ${deployments.length} checked twice, ${failedClosed} failing closed (exit 2)`);

// 2. --each: one run per input, in input order, in one log.
const each = deployments.filter((d) => d.files.length > 1).map((d) => [d.id, d.files]);
const singles = deployments.filter((d) => d.files.length === 1);
each.push([`${singles[0].id}+${singles[1].id}`, [singles[0].files[0], singles[1].files[0]]]);
for (const [id, files] of each) {
  const run = kb(checkArgs(files, "--each"), upstream);
  const doc = sarif(run, files.length);
  if (run.status === 2) assertFailedClosed(run, doc);
  const again = kb(checkArgs(files, "--each"), upstream);
  const diff = difference(identity(doc), identity(sarif(again, files.length)));
  if (diff) die(again.label, `${id}: a second invocation on the same input differs`, diff);
}
console.log(`--each: ${each.length} logs of ${each.map(([, f]) => f.length).join("/")} runs, checked twice`);

// 2b. With --base-url, the tool names its home page and each gotcha rule its page.
{
  const withUrl = deployments.find((d) => d.files.length === 1);
  const run = kb(checkArgs(withUrl.files, "--base-url", "https://kb.example.org/"), upstream);
  const doc = sarif(run, 1);
  const driver = doc.runs[0].tool.driver;
  if (driver.informationUri !== "https://kb.example.org/")
    die(run.label, `tool.driver.informationUri is ${JSON.stringify(driver.informationUri)}, expected the --base-url`);
  if (driver.semanticVersion !== driver.version)
    die(run.label, `tool.driver.semanticVersion ${JSON.stringify(driver.semanticVersion)} is not the version`);
  const gotchaRules = (driver.rules || []).filter((r) => r.id.startsWith("gotchas/"));
  if (!gotchaRules.length) die(run.label, `${withUrl.id} gave no gotcha rule to check helpUri on`);
  const bad = gotchaRules.find((r) => !String(r.helpUri ?? "").startsWith("https://kb.example.org/"));
  if (bad) die(run.label, `rule ${bad.id} has helpUri ${JSON.stringify(bad.helpUri)}, not a page under --base-url`);
}

// 3. One file, three spellings: the same fingerprints and URIs.
const files = [...new Set(deployments.flatMap((d) => d.files))];
for (const file of files) {
  const absolute = path.join(upstream, file);
  for (const [cwd, x] of [[path.dirname(absolute), path.basename(file)], [upstream, file]]) {
    const spellings = [x, `./${x}`, absolute];
    const docs = spellings.map((s) => {
      const run = kb(checkArgs([s]), cwd);
      const doc = sarif(run, 1);
      if (run.status === 2) assertFailedClosed(run, doc);
      return [run, identity(doc)];
    });
    for (const [run, id] of docs.slice(1)) {
      const diff = difference(docs[0][1], id);
      if (diff) die(run.label, `not the same fingerprints, artifact URIs or automationDetails.id as \`${x}\``, diff);
    }
  }
}
console.log(`spellings: ${files.length} files as x, ./x and absolute, from their folder and from tests/data/upstream`);

// 4. kb lint: the shipped records, twice, and each invalid fixture in their context.
const lintArgs = (tree, ...more) => ["lint", "--records", tree, "--format", "sarif", ...more];
const shipped = kb(lintArgs(records), source, [0, 1]);
const shippedDoc = sarif(shipped, 1);
const shippedAgain = kb(lintArgs(records), source, [0, 1]);
const lintDiff = difference(identity(shippedDoc), identity(sarif(shippedAgain, 1)));
if (lintDiff) die(shippedAgain.label, "a second invocation on the same records differs", lintDiff);

const invalid = path.join(source, "tests/data/invalid");
const context = path.join(source, "tests/data/invalid-context");
const lintWork = path.join(work, "lint");
fs.rmSync(lintWork, { recursive: true, force: true });
let fixtures = 0;
for (const name of fs.readdirSync(invalid).filter((n) => n.endsWith(".yaml")).sort()) {
  const text = fs.readFileSync(path.join(invalid, name));
  // First line: `# expect: CODE LINE:COL [in NAMESPACE | in PATH.yaml]`.
  const m = /^# expect: (\S+) (\d+):(\d+)(?: in (\S+))?/.exec(text.toString("latin1"));
  if (!m) die(`tests/data/invalid/${name}`, "no `# expect: CODE LINE:COL` header");
  const [, code, line] = m;
  const ns = m[4] || "gotchas";
  const rel = ns.endsWith(".yaml") ? ns : `${ns}/${code}.yaml`;
  const tree = path.join(lintWork, code, "records");
  fs.cpSync(records, tree, { recursive: true });
  fs.mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true });
  fs.writeFileSync(path.join(tree, rel), text);
  // The other records a tree code needs; one without a .yaml/.yml name (the second
  // definition of id.duplicate) joins the tree as NAME.yml, as kb lint reads only those.
  const places = [rel];
  const contextDir = path.join(context, code);
  for (const f of fs.existsSync(contextDir) ? fs.readdirSync(contextDir, { recursive: true }) : []) {
    if (!fs.statSync(path.join(contextDir, f)).isFile()) continue;
    const to = /\.ya?ml$/.test(f) ? f : `${f}.yml`;
    fs.mkdirSync(path.dirname(path.join(tree, to)), { recursive: true });
    fs.copyFileSync(path.join(contextDir, f), path.join(tree, to));
    places.push(to.split(path.sep).join("/"));
  }
  // The unit tests load fixtures with a 4 KiB limit so that limits.file-size has a small
  // example; the dates are measured from the day they use.
  const more = ["--today", "2026-11-30", ...(code === "limits.file-size" ? ["--max-file-bytes", "4096"] : [])];
  const run = kb(lintArgs(tree, ...more), path.dirname(tree), [0, 1]);
  const doc = sarif(run, 1);
  const mine = (doc.runs[0].results || []).filter((r) =>
    r.ruleId === code && (r.locations || []).some((l) =>
      places.some((p) => (l.physicalLocation?.artifactLocation?.uri || "").endsWith(`/${p}`))));
  if (mine.length === 0) {
    die(run.label, `records/${rel} (${name}) is broken with ${code} at ${line}:${m[3]}, ` +
                   `but no result of the log has ruleId ${code} at ${places.join(" or ")}`,
        (doc.runs[0].results || []).filter((r) => JSON.stringify(r).includes(path.basename(rel)))
          .map((r) => `${r.ruleId} ${JSON.stringify(r.locations)}`).join("\n") || "no result names the file");
  }
  fixtures++;
}
console.log(`lint: the shipped records twice, and ${fixtures} trees with one invalid fixture each`);
console.log(`SARIF: ${count.documents} documents (${count.runs} runs, ${count.results} results) from ` +
            `${count.kb} kb invocations validate against SARIF 2.1.0 and GitHub's upload rules`);
