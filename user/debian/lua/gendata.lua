-- gendata: lua gendata.lua [BYTES [FILE]] writes exactly BYTES bytes
-- (default 3 MiB) to FILE (default /tmp/data): numbered lines of words and
-- numbers from a fixed pseudo-random sequence, compressible about 3:1, the
-- same on every machine. The compression round trips compress it
-- (tests/qemu/test_realprogs.py, which also makes the same bytes in Python).
local size = tonumber(arg and arg[1]) or 3 * 1024 * 1024
local path = arg and arg[2] or "/tmp/data"

local seed = 7
local function rnd(n)            -- 0 .. n-1
  seed = (seed * 1103515245 + 12345) % 2147483648
  return (seed >> 8) % n
end

local words = { "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
  "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec",
  "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu" }

local f = assert(io.open(path, "wb"))
local written, line = 0, 0
while written < size do
  local lines = {}
  for k = 1, 256 do
    line = line + 1
    local a = words[1 + rnd(#words)]
    local b = words[1 + rnd(#words)]
    local c = words[1 + rnd(#words)]
    lines[k] = string.format("%07d %s %s %s %d\n", line, a, b, c, rnd(1000000))
  end
  local chunk = table.concat(lines)
  if written + #chunk > size then chunk = chunk:sub(1, size - written) end
  assert(f:write(chunk))
  written = written + #chunk
end
assert(f:close())
io.write(string.format("gendata: %d bytes in %s\n", written, path))
