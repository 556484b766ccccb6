-- wrk script of the soak test: cycles through the requests listed in $KB_SOAK_REQUESTS
-- ("GET /path" or "POST /path", one a line; a POST sends the file $KB_BENCH_BODY) and
-- counts answers by status class, summed over threads in done().
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  reqs = {}
  local body = ""
  local bf = io.open(os.getenv("KB_BENCH_BODY") or "", "rb")
  if bf then body = bf:read("*a"); bf:close() end
  for line in io.lines(os.getenv("KB_SOAK_REQUESTS")) do
    local method, path = line:match("^(%u+) (.+)$")
    if method == "POST" then
      table.insert(reqs, wrk.format("POST", path, {["Content-Type"] = "application/json"}, body))
    else
      table.insert(reqs, wrk.format("GET", path))
    end
  end
  i = 0
  s2, s3, s4, s5 = 0, 0, 0, 0
end

function request()
  i = i % #reqs + 1
  return reqs[i]
end

function response(status, headers, body)
  if status >= 500 then s5 = s5 + 1
  elseif status >= 400 then s4 = s4 + 1
  elseif status >= 300 then s3 = s3 + 1
  else s2 = s2 + 1 end
end

function done(summary, latency, requests)
  local t = {0, 0, 0, 0}
  for _, thread in ipairs(threads) do
    t[1] = t[1] + thread:get("s2")
    t[2] = t[2] + thread:get("s3")
    t[3] = t[3] + thread:get("s4")
    t[4] = t[4] + thread:get("s5")
  end
  io.write(string.format("status 2xx=%d 3xx=%d 4xx=%d 5xx=%d\n", t[1], t[2], t[3], t[4]))
end
