-- Requests spread round-robin over the hosts in $WRK_HOSTS (one per line); $WRK_PATH may
-- contain {sub}, the host's first label. Prints the summary as one JSON line.
local hosts = {}
for line in io.lines(os.getenv("WRK_HOSTS")) do hosts[#hosts + 1] = line end
local template = os.getenv("WRK_PATH")
local counter = 0

request = function()
  counter = counter + 1
  local host = hosts[(counter % #hosts) + 1]
  local sub = host:match("^([^.]+)")
  local path = template:gsub("{sub}", sub)
  return wrk.format("GET", path, { ["Host"] = host })
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "mean_us": %.1f, "p50_us": %d, "p90_us": %d, "p99_us": %d, "errors": %d}\n',
    summary.requests, summary.duration, latency.mean, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), e.status + e.connect + e.read + e.write + e.timeout))
end
