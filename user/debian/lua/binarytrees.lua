-- binary-trees: allocate and walk many perfect binary trees (the GC's
-- workload). lua binarytrees.lua [N]: depths 4 to max(6, N); each line is
-- the number of nodes counted, known in closed form (2^(d+1) - 1 a tree).
-- N = 10 in the test; the Benchmarks Game runs N = 21.
local N = tonumber(arg and arg[1]) or 10

-- a node is {left, right}; a leaf has neither
local function build(depth)
  if depth == 0 then return {} end
  depth = depth - 1
  return { build(depth), build(depth) }
end

local function count(t)
  local l = t[1]
  if not l then return 1 end
  return 1 + count(l) + count(t[2])
end

local mindepth = 4
local maxdepth = math.max(mindepth + 2, N)

local stretch = maxdepth + 1
io.write(string.format("stretch tree of depth %d\t check: %d\n", stretch, count(build(stretch))))

local longlived = build(maxdepth)

for depth = mindepth, maxdepth, 2 do
  local iterations = 1 << (maxdepth - depth + mindepth)
  local check = 0
  for _ = 1, iterations do
    check = check + count(build(depth))
  end
  io.write(string.format("%d\t trees of depth %d\t check: %d\n", iterations, depth, check))
end

io.write(string.format("long lived tree of depth %d\t check: %d\n", maxdepth, count(longlived)))
