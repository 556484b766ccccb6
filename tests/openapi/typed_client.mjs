// The OpenAPI document as a typed client sees it: types generated from the live document
// with openapi-typescript, then client.ts compiled against them with `tsc --strict
// --noEmit`; and the document linted with Redocly's recommended rules (errors fail) and
// with Spectral's OpenAPI rules (spectral:oas; errors and warnings fail).
// usage: node typed_client.mjs KB_BINARY RECORDS   (in a directory holding node_modules)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { createRequire } from "node:module";
import { startServe } from "./serve.mjs";

const require = createRequire(import.meta.url);
const { Spectral, Document } = require("@stoplight/spectral-core");
const Parsers = require("@stoplight/spectral-parsers");
const { oas } = require("@stoplight/spectral-rulesets");

const [kb, records] = process.argv.slice(2);
const { base, server } = await startServe(kb, records);
let text;
try {
  text = await (await fetch(base + "/api/v1/openapi.json")).text();
} finally {
  server.kill();
}
let failures = 0;
fs.writeFileSync("openapi.json", text);

// 1. Redocly's recommended rules: errors fail, warnings are listed.
const config = await createConfig({ extends: ["recommended"] });
const problems = await lintFromString({ source: text, absoluteRef: "openapi.json", config });
for (const p of problems) {
  const where = p.location?.[0]?.pointer ?? "";
  console.error(`redocly ${p.severity} ${p.ruleId} ${where}: ${p.message}`);
  if (p.severity === "error") failures++;
}

// 2. Spectral's spectral:oas rules, as `spectral lint` applies them by default: any error
// or warning fails (information and hints are listed).
const spectral = new Spectral();
spectral.setRuleset({ extends: [[oas, "recommended"]] });
const findings = await spectral.run(new Document(text, Parsers.Json, "openapi.json"));
const severities = ["error", "warning", "info", "hint"];
for (const f of findings) {
  const level = severities[f.severity] ?? String(f.severity);
  console.error(`spectral ${level} ${f.code} /${f.path.join("/")}: ${f.message}`);
  if (f.severity <= 1) failures++;
}

// 3. The generated types, and the client compiled against them.
const ast = await openapiTS(JSON.parse(text));
fs.writeFileSync("api.d.ts", astToString(ast));
const tsc = spawnSync(process.execPath,
  ["node_modules/typescript/bin/tsc", "--strict", "--noEmit", "--target", "es2022", "--module", "es2022",
   "--moduleResolution", "bundler", "--lib", "es2022,dom", "client.ts"],
  { stdio: "inherit" });
if (tsc.status !== 0) { console.error("FAIL tsc --strict: client.ts does not compile against the document's types"); failures++; }

if (failures) { console.error(`${failures} failures`); process.exit(1); }
console.log(`a typed client compiles against the document (${problems.length} Redocly warnings, ` +
  `${findings.length} Spectral findings)`);
