#!/usr/bin/env python3
"""HTTP under wrk: GET one record, search, POST /api/v1/check, against nginx serving the
same response bytes as static files (the ceiling for a response); then the server's RSS.

    bench_http.py [RECORDS]          default: 100000

`kb serve --records` on the generated tree; nginx (2 workers, access log off, unlimited
keep-alive) on a copy of kb's own answers: the record JSON, the search JSON and the
check JSON (a POST to a static file is answered 200 through error_page 405). wrk runs 2
threads for SECONDS (default 10) per run, RUNS runs, at 16 and 64 connections; the
figures are medians. kb, nginx and wrk share the machine's cores, as they would. The
check posts the generator's deployment (several engines at set versions, a few features:
manifest.json "deployment"), check-1 the least popular of its engines alone (a service
that runs one engine: a handful of findings, so the fixed cost of a check shows); the
findings each gets and every answer's size are printed.
Targets at 100k: GET >= 0.5x nginx req/s and p99 < 5 ms at 64 connections, search p99
< 20 ms, check p99 < 2 ms, serving RSS < 300 MiB.
"""
import json
import os
import shutil
import sys
import time

import benchlib as b

SECONDS = int(os.environ.get("SECONDS_PER_RUN", "10"))
NGINX_CONF = """daemon off;
worker_processes 2;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path {work}/nginx-tmp;
  proxy_temp_path {work}/nginx-tmp;
  fastcgi_temp_path {work}/nginx-tmp;
  uwsgi_temp_path {work}/nginx-tmp;
  scgi_temp_path {work}/nginx-tmp;
  server {{
    listen 127.0.0.1:{port};
    root {root};
    default_type application/json;
    location = /healthz {{ return 200 "ok"; }}
    location /check {{ error_page 405 =200 $uri; }}
  }}
}}
"""


def deployment(man):
    """The generator's realistic deployment (several engines at known versions, a few
    features set); a corpus from before it had one gets the old single-engine probe."""
    if "deployment" in man:
        return json.dumps(man["deployment"])
    return json.dumps({"engines": [{"engine": man["probe_engine"].split("/", 1)[1],
                                    "version": "0.26.0"}],
                       "config": {"kv_transfer": "pd", "prefix_caching": "true",
                                  "attention_backend": "flashinfer"}})


def one_engine(man):
    """The last (least popular) engine of the generator's deployment, alone."""
    full = json.loads(deployment(man))
    return json.dumps({"engines": full["engines"][-1:]})


def start_nginx(root):
    port = b.free_port()
    os.makedirs(os.path.join(b.WORK, "nginx-tmp"), exist_ok=True)
    conf = os.path.join(b.WORK, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(work=b.WORK, port=port, root=root))
    return b.Server(["nginx", "-c", conf, "-p", b.WORK], port)


def main():
    b.need(b.KB)
    b.need("wrk")
    b.need("nginx")
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    d, man = b.corpus(n)
    slug = man["probe_gotcha"].split("/", 1)[1]
    term = man["search_term"]
    bodies = {"check": deployment(man), "check-1": one_engine(man)}
    body_files = {}
    for key, text in bodies.items():
        body_files[key] = os.path.join(b.WORK, "deployment-%s.json" % key)
        with open(body_files[key], "w") as f:
            f.write(text)

    t0 = time.perf_counter()
    kb = b.kb_serve(records=os.path.join(d, "records"))
    startup = time.perf_counter() - t0
    rss_idle = kb.rss_mib()
    root = os.path.join(b.WORK, "nginx-root")
    if os.path.exists(root):
        shutil.rmtree(root)
    paths = {"get": "/api/v1/gotchas/" + slug, "search": "/api/v1/search?q=" + term}
    static = {"get": "/get.json", "search": "/search.json", "check": "/check/findings.json",
              "check-1": "/check/one.json"}
    for key, path in paths.items():
        status, body = b.get(kb.port, path)
        assert status == 200, (path, status)
        os.makedirs(os.path.dirname(root + static[key]), exist_ok=True)
        with open(root + static[key], "wb") as f:
            f.write(body)
    findings = {}
    for key, text in bodies.items():
        status, body = b.get(kb.port, "/api/v1/check", method="POST", body=text.encode(),
                             headers={"Content-Type": "application/json"})
        assert status == 200, status
        os.makedirs(os.path.dirname(root + static[key]), exist_ok=True)
        with open(root + static[key], "wb") as f:
            f.write(body)
        findings[key] = len(json.loads(body).get("findings", []))

    nginx = start_nginx(root)
    post = os.path.join(b.REPO, "bench", "post.lua")
    rows, saved = [], {"records": n, "startup_s": round(startup, 2), "findings": findings,
                       "bytes": {k: os.path.getsize(root + v) for k, v in static.items()}}
    try:
        for conns in (16, 64):
            for key in ("get", "search", "check", "check-1"):
                script = post if key in bodies else None
                if key in bodies:
                    os.environ["KB_BENCH_BODY"] = body_files[key]
                kpath = "/api/v1/check" if key in bodies else paths[key]
                k = b.wrk_median("http://127.0.0.1:%d%s" % (kb.port, kpath), conns, SECONDS, script)
                p = b.wrk_median("http://127.0.0.1:%d%s" % (nginx.port, static[key]), conns,
                                 SECONDS, script)
                saved["%s_%d" % (key, conns)] = {"kb": k, "nginx": p}
                rows.append([key, conns, "%.0f" % k["rps"], "%.2f" % k["p99_ms"], "%.0f" % p["rps"],
                             "%.2f" % p["p99_ms"], "%.2fx" % (k["rps"] / p["rps"]),
                             k["non2xx"], k["socket_errors"] or "-"])
        saved["rss_idle_mib"] = round(rss_idle)
        saved["rss_after_mib"] = round(kb.rss_mib())
        # The server hands back what the burst left in the heap after a second without
        # requests: RSS once it has been quiet, beside RSS right after the last run.
        time.sleep(3)
        saved["rss_quiet_mib"] = round(kb.rss_mib())
        saved["rss_peak_mib"] = round(kb.rss_mib("VmHWM"))
        saved["nginx_rss_mib"] = round(nginx.tree_rss_mib())
    finally:
        nginx.stop()
        kb.stop()
    b.table(["request", "conns", "kb req/s", "kb p99 ms", "nginx req/s", "nginx p99 ms",
             "req/s kb/nginx", "kb non-2xx", "kb socket errors"], rows)
    print("\nkb serve, %d records: start %.1f s, RSS idle %d MiB, after load %d MiB, "
          "3 s later %d MiB, peak %d MiB"
          % (n, startup, saved["rss_idle_mib"], saved["rss_after_mib"], saved["rss_quiet_mib"],
             saved["rss_peak_mib"]))
    print("GET %s: %d bytes; search q=%s: %d bytes" % (slug, saved["bytes"]["get"], term,
                                                       saved["bytes"]["search"]))
    for key, text in bodies.items():
        print("%s: %d findings, %d bytes (%s)" % (key, findings[key], saved["bytes"][key], text))
    b.save("http", saved)


if __name__ == "__main__":
    main()
