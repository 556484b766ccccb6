-- wrk script for bench_search_sentences.py: GETs the request paths of the file named by
-- $KB_BENCH_PATHS (one a line), each at most once. Lines KB_BENCH_FIRST .. KB_BENCH_END - 1
-- (0-based) are this run's; thread i of KB_BENCH_THREADS takes every KB_BENCH_THREADS-th of
-- them from FIRST + i (disjoint slices). A thread that has sent its whole slice stops wrk
-- with an error rather than send a line twice. done() prints how many each thread took,
-- and each thread's non-2xx answers by status, with the first one's body.
local first = tonumber(os.getenv("KB_BENCH_FIRST"))
local last = tonumber(os.getenv("KB_BENCH_END"))
local nthreads = tonumber(os.getenv("KB_BENCH_THREADS"))
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  paths, n, bad, first_bad = {}, 0, "", ""
  local statuses = {}
  function response(status, headers, body)
    if status < 200 or status > 299 then
      statuses[status] = (statuses[status] or 0) + 1
      bad = ""
      for k, v in pairs(statuses) do bad = bad .. k .. "x" .. v .. " " end
      if first_bad == "" then first_bad = (body or ""):sub(1, 300):gsub("\n", " ") end
    end
  end
  local f = assert(io.open(os.getenv("KB_BENCH_PATHS"), "r"))
  local i = 0
  for line in f:lines() do
    if i >= last then break end
    if i >= first and (i - first) % nthreads == id then paths[#paths + 1] = line end
    i = i + 1
  end
  f:close()
end

function request()
  n = n + 1
  local p = paths[n]
  if p == nil then
    io.stderr:write(string.format("SENTENCES EXHAUSTED: wrk thread %d sent all %d of its "
      .. "slice; raise SENTENCES\n", id, #paths))
    os.exit(3)
  end
  return wrk.format("GET", p)
end

function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    io.write(string.format("sentences-used %d %d\n", t:get("id"), t:get("n")))
    if t:get("bad") ~= "" then
      io.write(string.format("non-2xx %d %s| %s\n", t:get("id"), t:get("bad"), t:get("first_bad")))
    end
  end
end
