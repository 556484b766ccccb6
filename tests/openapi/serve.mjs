// Starts `kb serve` on RECORDS at a free port and waits until /healthz answers: shared by
// validate.mjs and typed_client.mjs. Returns {base, server}; the caller kills `server`.
import { spawn } from "node:child_process";
import net from "node:net";

export async function startServe(kb, records) {
  const port = await new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
  const server = spawn(kb, ["serve", "--records", records, "--port", String(port), "--no-watch"],
                       { stdio: ["ignore", "inherit", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try { if ((await fetch(base + "/healthz")).ok) break; } catch {}
    if (i > 200) { server.kill(); throw new Error("kb serve did not start"); }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, server };
}
