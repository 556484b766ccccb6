-- wrk script: POSTs the JSON document in the file named by $KB_BENCH_BODY.
local f = assert(io.open(os.getenv("KB_BENCH_BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
