-- POSTs a code request for a new address every time (no address is asked twice), to the
-- partner in $WRK_HOST. Prints the summary as one JSON line, like wrk.lua.
local host = os.getenv("WRK_HOST")
local sub = host:match("^([^.]+)")
local counter = 0
thread_id = 0
local threads = {}

setup = function(thread)
  thread:set("thread_id", #threads + 1)
  threads[#threads + 1] = thread
end

request = function()
  counter = counter + 1
  local body = string.format('{"email": "bench-%d-%d-%d@example.org", "partner": "%s"}',
    thread_id, counter, os.time(), sub)
  return wrk.format("POST", "/api/auth/registration/otp/",
    { ["Host"] = host, ["Content-Type"] = "application/json" }, body)
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "mean_us": %.1f, "p50_us": %d, "p90_us": %d, "p99_us": %d, "errors": %d}\n',
    summary.requests, summary.duration, latency.mean, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), e.status + e.connect + e.read + e.write + e.timeout))
end
