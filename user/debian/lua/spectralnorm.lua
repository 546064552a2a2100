-- spectral-norm: the largest singular value of the infinite matrix
-- A(i,j) = 1/((i+j)(i+j+1)/2 + i + 1), truncated to N x N, by ten power
-- iterations of A'A. lua spectralnorm.lua [N]: N = 100 gives 1.274219991
-- (the Benchmarks Game's check value); it tends to 1.2742241...
local N = tonumber(arg and arg[1]) or 100

local function a(i, j)        -- i, j from 0
  local ij = i + j
  return 1.0 / (ij * (ij + 1) // 2 + i + 1)
end

-- out = A v, or A' v when transposed
local function times(out, v, transposed)
  for i = 0, N - 1 do
    local sum = 0.0
    for j = 0, N - 1 do
      if transposed then
        sum = sum + a(j, i) * v[j]
      else
        sum = sum + a(i, j) * v[j]
      end
    end
    out[i] = sum
  end
end

local function ata_times(out, v, tmp)
  times(tmp, v, false)
  times(out, tmp, true)
end

local u, v, tmp = {}, {}, {}
for i = 0, N - 1 do u[i] = 1.0 end
for _ = 1, 10 do
  ata_times(v, u, tmp)
  ata_times(u, v, tmp)
end

local vbv, vv = 0.0, 0.0
for i = 0, N - 1 do
  vbv = vbv + u[i] * v[i]
  vv = vv + v[i] * v[i]
end
io.write(string.format("%0.9f\n", math.sqrt(vbv / vv)))
