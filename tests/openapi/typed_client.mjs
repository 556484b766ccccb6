// The OpenAPI document as a typed client sees it: types generated from the live document
// with openapi-typescript, then client.ts compiled against them with `tsc --strict
// --noEmit`; and the document linted with Redocly's recommended rules (errors fail).
// usage: node typed_client.mjs KB_BINARY RECORDS   (in a directory holding node_modules)
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import openapiTS, { astToString } from "openapi-typescript";
import { createConfig, lintFromString } from "@redocly/openapi-core";

const [kb, records] = process.argv.slice(2);
const port = await new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
});
const server = spawn(kb, ["serve", "--records", records, "--port", String(port), "--no-watch"],
                     { stdio: ["ignore", "inherit", "inherit"] });
const base = `http://127.0.0.1:${port}`;
let text;
try {
  for (let i = 0; ; i++) {
    try { if ((await fetch(base + "/healthz")).ok) break; } catch {}
    if (i > 200) throw new Error("kb serve did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
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

// 2. The generated types, and the client compiled against them.
const ast = await openapiTS(JSON.parse(text));
fs.writeFileSync("api.d.ts", astToString(ast));
const tsc = spawnSync(process.execPath,
  ["node_modules/typescript/bin/tsc", "--strict", "--noEmit", "--target", "es2022", "--module", "es2022",
   "--moduleResolution", "bundler", "--lib", "es2022,dom", "client.ts"],
  { stdio: "inherit" });
if (tsc.status !== 0) { console.error("FAIL tsc --strict: client.ts does not compile against the document's types"); failures++; }

if (failures) { console.error(`${failures} failures`); process.exit(1); }
console.log(`a typed client compiles against the document (${problems.length} Redocly warnings)`);
